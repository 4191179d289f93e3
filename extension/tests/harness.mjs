// A Relay over fakeChrome, wired like sw.js, with manual timers.

import { Relay } from '../lib/relay.js';
import { wire } from '../lib/wire.js';
import { SELF_ID, fakeChrome } from './fakechrome.mjs';
import { FakeTimers, logger } from './fakes.mjs';

export function setup() {
  const c = fakeChrome();
  c.addTab({ id: 5, url: 'http://a/', title: 'A', active: true });
  const timers = new FakeTimers();
  const log = logger();
  const events = [];
  const notify = (method, params, opts) => {
    events.push([method, params, opts]);
    return true;
  };
  const relay = new Relay({ ...c, selfId: SELF_ID, notify, timers, log });
  wire(c, relay, notify, log);
  /** Events of one method sent so far. */
  const sent = (method) =>
    events.filter(([m]) => m === method).map(([, p]) => p);
  return { c, relay, timers, log, events, sent };
}

export const evaluate = (tabId, expression = '1', extra = {}) => ({
  tab_id: tabId,
  method: 'Runtime.evaluate',
  params: { expression },
  ...extra,
});
