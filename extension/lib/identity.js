// Who this browser is, for the daemon (PROTOCOL.md hello): browser_id
// names this browser profile (random, made once, kept in storage.local);
// run_id names this run of the browser (kept in storage.session, which
// outlives the service worker but not the browser: tab and group ids of
// another run mean nothing); profile is the name the user gave the profile
// in the panel ("" until then).

export const BROWSER_ID_KEY = 'browser_id';
export const PROFILE_KEY = 'profile_name';
export const RUN_ID_KEY = 'run_id';
export const PROFILE_MAX = 40;

const ID = /^[0-9a-f-]{16,64}$/;

/** A profile name as the panel saves it: one line, at most PROFILE_MAX. */
export function cleanProfile(value) {
  if (typeof value !== 'string') return '';
  return value.replace(/\s+/g, ' ').trim().slice(0, PROFILE_MAX);
}

/**
 * Loads (making them when missing) the ids of this profile and this run.
 * @param {{local: chrome.storage.StorageArea,
 *   session: chrome.storage.StorageArea}} storage
 * @param {() => string} [newId]
 * @returns {Promise<{browser_id: string, run_id: string, profile: string}>}
 */
export async function loadIdentity(storage, newId = () => crypto.randomUUID()) {
  const local = await storage.local.get([BROWSER_ID_KEY, PROFILE_KEY]);
  let browserId = local?.[BROWSER_ID_KEY];
  if (typeof browserId !== 'string' || !ID.test(browserId)) {
    browserId = newId();
    await storage.local.set({ [BROWSER_ID_KEY]: browserId });
  }
  const session = await storage.session.get(RUN_ID_KEY);
  let runId = session?.[RUN_ID_KEY];
  if (typeof runId !== 'string' || !ID.test(runId)) {
    runId = newId();
    await storage.session.set({ [RUN_ID_KEY]: runId });
  }
  return {
    browser_id: browserId,
    run_id: runId,
    profile: cleanProfile(local?.[PROFILE_KEY]),
  };
}
