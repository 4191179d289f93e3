// Gasoline service worker: relays CDP between the daemon (through the
// gasoline-host native-messaging host) and chrome.debugger.
// Every chrome.* listener is registered synchronously at top level, and the
// link is started at top level too: the worker may wake for any event, and
// an open native port keeps it alive.

import { browserName } from './lib/browser.js';
import { Connector, HOST_NAME, PROTOCOL_VERSION } from './lib/connector.js';
import { PROFILE_KEY, cleanProfile, loadIdentity } from './lib/identity.js';
import { log } from './lib/log.js';
import { packageFile } from './lib/inject.js';
import { DownloadGuard, wireDownloads } from './lib/downloads.js';
import { DOWN, releaseInterception } from './lib/interception.js';
import { PanelBridge, viaConnector, wirePanel } from './lib/panelbridge.js';
import { Relay } from './lib/relay.js';
import { wire } from './lib/wire.js';

const relay = new Relay({
  tabs: chrome.tabs,
  tabGroups: chrome.tabGroups,
  debugger: chrome.debugger,
  storage: { local: chrome.storage.local, session: chrome.storage.session },
  selfId: chrome.runtime.id,
  notify: (method, params) => connector.notify(method, params),
  loadFile: packageFile(chrome.runtime),
  log,
});

// The agent panel (sidepanel.html): its requests go to the daemon on the
// link; it hears the link's state, the daemon's approval events and its
// conversation's events (panel.event).
const panels = new PanelBridge({
  request: (method, params) => viaConnector(connector)(method, params),
  notify: (method, params) => connector.notify(method, params),
  selfId: chrome.runtime.id,
  log,
});

// Which browser profile, and which run of the browser, this is: tab ids are
// unique only within one browser, so the daemon tells browsers apart by it.
let identity = null;
const identify = () => {
  identity ??= loadIdentity({
    local: chrome.storage.local,
    session: chrome.storage.session,
  }).catch((err) => {
    identity = null; // the next hello tries again
    throw err;
  });
  return identity;
};

const connector = new Connector({
  connect: () => chrome.runtime.connectNative(HOST_NAME),
  hello: async () => ({
    protocol: PROTOCOL_VERSION,
    role: 'extension',
    version: chrome.runtime.getManifest().version,
    extension_id: chrome.runtime.id,
    browser: browserName(navigator),
    ...(await identify()),
  }),
  onRequest: (method, params, reply) => relay.handle(method, params, reply),
  onEvent: (method, params) =>
    panels.event(method, params) || log(`event ${method} ignored`),
  onState: (state, detail) => {
    panels.linkState(state, detail);
    if (DOWN.has(state)) {
      releaseInterception(chrome.debugger, relay.attachments.attached(), log);
    }
    // A daemon that came back got the hello the host replayed, with the
    // profile name of then: say the current one.
    if (state === 'ready') announceProfile();
  },
  lastError: () => chrome.runtime.lastError?.message,
  log,
});

wire(
  chrome,
  relay,
  (method, params, opts) => connector.notify(method, params, opts),
  log,
);

wirePanel(chrome, panels, log);

// Downloads of the agents' tabs never reach the Downloads folder.
wireDownloads(
  chrome,
  new DownloadGuard({
    downloads: chrome.downloads,
    attached: () => relay.attachments.attached(),
    log,
  }),
);

// The user names this browser profile in the panel (storage.local).
async function announceProfile() {
  const id = await identify().catch(() => null);
  if (id) connector.notify('browser.renamed', { profile: id.profile });
}
chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local' || !(PROFILE_KEY in changes)) return;
  const profile = cleanProfile(changes[PROFILE_KEY].newValue);
  identity = identify().then((id) => ({ ...id, profile }));
  connector.notify('browser.renamed', { profile });
});

chrome.runtime.onStartup.addListener(() => connector.start());
chrome.runtime.onInstalled.addListener(() => connector.start());

// Backstop: without an open port the worker is suspended within a minute and
// its retry timer dies with it. A periodic alarm wakes it to connect again.
const WAKE_ALARM = 'gasoline-link';
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM) connector.start();
});
chrome.alarms.get(WAKE_ALARM).then((alarm) => {
  if (!alarm) chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
});

relay.start();
connector.start();
