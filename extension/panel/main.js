// The side panel page's entry point: binds the page's elements, connects
// to the service worker, and renders every change.

import { PanelController } from './controller.js';
import { wireChat } from './chatdom.js';
import { bind, renderer } from './dom.js';
import { bindTerminal, wireTerminal } from './terminaldom.js';
import { PROFILE_KEY, cleanProfile } from '../lib/identity.js';
import { ShareCard, bindShare, wireBrowserName } from './share.js';
import { RemotesCard, bindRemotes } from './remotes.js';

const CONVERSATION_KEY = 'panel.conversation';

/** The conversation id survives closing the panel (not the browser). */
const storage = {
  get: async () =>
    (await chrome.storage.session.get(CONVERSATION_KEY))[CONVERSATION_KEY],
  set: (value) => chrome.storage.session.set({ [CONVERSATION_KEY]: value }),
};

const isWebPage = (tab) => /^(https?|file):/.test(tab?.url ?? '');

/**
 * The web page the user is looking at in this window, if any. When this
 * panel is itself the active tab (opened as a page, not as the side
 * panel), the web page the user was on just before.
 */
async function activeTab() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  if (isWebPage(tab)) return tab;
  if (tab?.url !== location.href) return null;
  const tabs = await chrome.tabs.query({ currentWindow: true });
  const pages = tabs.filter(isWebPage);
  pages.sort((a, b) => (b.lastAccessed ?? 0) - (a.lastAccessed ?? 0));
  return pages[0] ?? null;
}

let exportURL = '';
/** Offers text as a downloaded file through a blob URL; returns the URL. */
function download(name, text) {
  if (exportURL) URL.revokeObjectURL(exportURL);
  exportURL = URL.createObjectURL(
    new Blob([text], { type: 'application/json' }),
  );
  const a = document.createElement('a');
  a.href = exportURL;
  a.download = name;
  a.click();
  return exportURL;
}

const els = bind(document);
// New entries scroll into view while the user is typing or was reading
// near the end (the page's height already includes them).
els.onAdded = () => {
  const root = document.scrollingElement;
  const below = root.scrollHeight - root.scrollTop - root.clientHeight;
  if (document.activeElement === els.input || below < 400) {
    els.composer.scrollIntoView({ block: 'end' });
  }
};
const controller = new PanelController({
  connect: () => chrome.runtime.connect({ name: 'panel' }),
  render: renderer(
    els,
    (id, decision, minutes) => controller.decide(id, decision, minutes),
    (grantId) => controller.revoke(grantId),
  ),
  storage,
  activeTab,
  download,
});
wireChat(els, controller);
els.start?.addEventListener('click', () => controller.startDaemon());
controller.terminal = wireTerminal(bindTerminal(document), controller.client);
controller.start();

// This tab: share it with an agent, or stop sharing.
const shareEls = bindShare(document);
const share = new ShareCard({
  client: controller.client,
  activeTab,
  els: shareEls,
  doc: document,
});
chrome.tabs.onActivated.addListener(() => share.refresh());
chrome.tabs.onUpdated.addListener((_, change) => {
  if ('groupId' in change || change.status === 'complete') share.refresh();
});
share.start();
wireBrowserName(shareEls, {
  get: async () => (await chrome.storage.local.get(PROFILE_KEY))[PROFILE_KEY],
  set: (v) => chrome.storage.local.set({ [PROFILE_KEY]: cleanProfile(v) }),
});

// Agents on other machines: listed with what each may do, revocable.
new RemotesCard({
  client: controller.client,
  els: bindRemotes(document),
}).start();
