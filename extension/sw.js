// Gasoline service worker: relays CDP between the daemon (through the
// gasoline-host native-messaging host) and chrome.debugger.
// Every chrome.* listener is registered synchronously at top level, and the
// link is started at top level too: the worker may wake for any event, and
// an open native port keeps it alive.

import { browserName } from './lib/browser.js';
import { Connector, HOST_NAME, PROTOCOL_VERSION } from './lib/connector.js';
import { log } from './lib/log.js';
import { Relay, cdpDetached, cdpEvent } from './lib/relay.js';

const relay = new Relay({ tabs: chrome.tabs, debugger: chrome.debugger });

const connector = new Connector({
  connect: () => chrome.runtime.connectNative(HOST_NAME),
  hello: () => ({
    protocol: PROTOCOL_VERSION,
    role: 'extension',
    version: chrome.runtime.getManifest().version,
    extension_id: chrome.runtime.id,
    browser: browserName(navigator),
  }),
  onRequest: (method, params) => relay.handle(method, params),
  onEvent: (method) => log(`event ${method} ignored`),
  lastError: () => chrome.runtime.lastError?.message,
  log,
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  const p = cdpEvent(source, method, params);
  if (p) connector.notify('cdp.event', p);
});

chrome.debugger.onDetach.addListener((source, reason) => {
  const p = cdpDetached(source, reason);
  if (!p) return;
  relay.forget(p.tab_id);
  log(`debugger detached from tab ${p.tab_id}: ${reason}`);
  connector.notify('cdp.detached', p);
});

chrome.tabs.onRemoved.addListener((tabId) => {
  relay.forget(tabId);
  connector.notify('tabs.removed', { tab_id: tabId });
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

connector.start();
