// The daemon answers every request its Fetch interception holds in a
// session's tab (each document's response, the requests a route
// matches: docs/DEVTOOLS.md). While the link to it is down nobody does,
// and the tab's page loads would wait until the idle detach: so the
// interception is switched off in every attached tab as soon as the link
// goes, which lets held requests go on. The daemon switches it back on
// when it sees the tab again.

/** The link states in which no daemon answers. */
export const DOWN = new Set(['closed', 'stopped', 'daemon_unavailable']);

/**
 * Switches the Fetch interception off in each tab (best effort).
 * @param {typeof chrome.debugger} dbg
 * @param {number[]} tabIds the attached tabs
 * @param {(text: string) => void} [log]
 */
export async function releaseInterception(dbg, tabIds, log = () => {}) {
  await Promise.all(
    tabIds.map(async (tabId) => {
      try {
        await dbg.sendCommand({ tabId }, 'Fetch.disable', {});
      } catch (err) {
        log(`Fetch.disable in tab ${tabId}: ${err?.message}`);
      }
    }),
  );
}
