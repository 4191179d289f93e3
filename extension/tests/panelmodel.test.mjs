import assert from 'node:assert/strict';
import test from 'node:test';

import { ERROR_AFTER_MS, PanelModel, TIMELINE_MAX } from '../panel/model.js';

const READY = { state: 'ready', daemon: { version: '0.1.0', pid: 9 } };
const STATUS = (http = 1, extra = {}) => ({
  health: {
    version: '0.1.0',
    pid: 9,
    transport_status: { stdio: 0, http, extension: 'connected' },
  },
  pending_approvals: 0,
  policy_version: 0,
  ...extra,
});
const req = (id, extra = {}) => ({
  request_id: id,
  session: 's_1',
  action: 'interact.click',
  scope: { tab_id: 7, origin: 'https://shop.example' },
  target: 'button "Pay now" on https://shop.example/checkout',
  created_at: '2030-01-01T00:00:00Z',
  expires_at: '2030-01-01T00:05:00Z',
  site_grantable: true,
  ...extra,
});
const ev = (type, r, extra = {}) => ({
  type,
  time: '2030-01-01T00:00:01Z',
  request: r,
  ...extra,
});

/** A model whose port is open and link ready, with status. */
function ready(status = STATUS()) {
  const m = new PanelModel();
  m.portConnecting(0);
  m.portOpened();
  m.linkChanged(READY);
  m.setStatus(status);
  return m;
}

test('idle → connecting → ready', () => {
  const m = new PanelModel();
  assert.equal(m.phase(0).state, 'idle');
  m.portConnecting(0);
  assert.equal(m.phase(0).state, 'connecting');
  m.portOpened();
  assert.equal(m.phase(0).state, 'connecting'); // no link state yet
  m.linkChanged({ state: 'connecting', down_since: 0 });
  assert.equal(m.phase(100).state, 'connecting');
  assert.equal(m.linkChanged(READY), true, 'became ready: re-fetch');
  assert.equal(m.linkChanged(READY), false);
  assert.equal(m.phase(100).state, 'connecting', 'status not read yet');
  m.setStatus(STATUS());
  const p = m.phase(100);
  assert.equal(p.state, 'ready');
  assert.match(p.detail, /agent is connected/);
});

test('needs_approval while any request pends, ready again after', () => {
  const m = ready();
  m.approvalEvent(ev('requested', req('r1')));
  m.approvalEvent(ev('requested', req('r2')));
  assert.equal(m.phase(0).state, 'needs_approval');
  assert.match(m.phase(0).detail, /2 requests/);
  m.approvalEvent(ev('approved', req('r1'), { decision: 'once' }));
  assert.match(m.phase(0).detail, /waiting for your decision/);
  m.approvalEvent(ev('denied', req('r2'), { reason: 'no' }));
  assert.equal(m.phase(0).state, 'ready');
  assert.deepEqual(
    m.timeline.map((e) => e.type),
    ['denied', 'approved', 'requested', 'requested'],
  );
});

test('degraded: no agent session, or a broken policy file', () => {
  assert.equal(ready(STATUS(0)).phase(0).state, 'degraded');
  assert.match(ready(STATUS(0)).phase(0).detail, /no agent is connected/i);
  const broken = ready(STATUS(1, { policy_error: 'line 3: bad effect' }));
  const p = broken.phase(0);
  assert.equal(p.state, 'degraded');
  assert.match(p.detail, /line 3: bad effect/);
  assert.match(p.fix, /Fix policy.json/);
});

test('a link that drops is degraded, then an error after the threshold', () => {
  const m = ready();
  m.approvalEvent(ev('requested', req('r1')));
  m.linkChanged({
    state: 'closed',
    reason: 'Native host has exited.',
    down_since: 1000,
  });
  assert.equal(m.pending.size, 0, 'a restarted daemon forgets its requests');
  assert.equal(m.status, null, 'the status is stale until read again');
  let p = m.phase(1000 + ERROR_AFTER_MS);
  assert.equal(p.state, 'degraded');
  assert.match(p.detail, /Reconnecting.*Native host has exited/);
  p = m.phase(1001 + ERROR_AFTER_MS);
  assert.equal(p.state, 'error');
  assert.match(p.detail, /cannot reach the Gasoline native host/);
  assert.match(p.fix, /run this in a terminal/);
  assert.equal(p.command, 'gasoline-host doctor');
});

test('a link that never came up: connecting, then an error saying why', () => {
  const m = new PanelModel();
  m.portConnecting(0);
  m.portOpened();
  m.linkChanged({
    state: 'closed',
    reason: 'Specified native messaging host not found.',
    down_since: 0,
  });
  assert.equal(m.phase(5000).state, 'connecting');
  const p = m.phase(ERROR_AFTER_MS + 1);
  assert.equal(p.state, 'error');
  assert.match(p.detail, /\(Specified native messaging host not found\)\./);
});

test('the daemon going away behind a live host is degraded, then error', () => {
  const m = ready();
  m.linkChanged({
    state: 'daemon_unavailable',
    reason: 'dial refused',
    down_since: 0,
  });
  assert.equal(m.phase(10).state, 'degraded');
  const p = m.phase(ERROR_AFTER_MS + 1);
  assert.equal(p.state, 'error');
  assert.match(p.detail, /daemon is not running \(dial refused\)/);
});

test('a deliberate stop: "Gasoline is stopped" with Start, never an error', () => {
  const m = ready();
  m.linkChanged({
    state: 'stopped',
    reason: 'Gasoline was stopped on purpose (SIGTERM)',
    down_since: 0,
  });
  const p = m.phase(10 * ERROR_AFTER_MS);
  assert.equal(p.state, 'stopped');
  assert.equal(p.detail, 'Gasoline is stopped');
  assert.equal(p.start, true);
  assert.match(p.fix, /stopped on purpose \(SIGTERM\)/);
  m.starting = true;
  assert.equal(m.phase(0).starting, true);
  m.starting = false;
  m.startError = 'Starting failed: timeout';
  assert.equal(m.phase(0).fix, 'Starting failed: timeout');
  m.linkChanged(READY);
  assert.notEqual(m.phase(0).state, 'stopped');
});

test('the port to the worker dropping: degraded, then error', () => {
  const m = ready();
  m.approvalEvent(ev('requested', req('r1')));
  m.portClosed(500);
  assert.equal(m.pending.size, 0);
  assert.equal(m.link, null);
  m.portConnecting(900); // the retry keeps the first down time
  assert.equal(m.phase(900).state, 'degraded');
  const p = m.phase(501 + ERROR_AFTER_MS);
  assert.equal(p.state, 'error');
  assert.match(p.fix, /chrome:\/\/extensions/);
});

test('the list replaces pending requests but keeps newer and drops decided ones', () => {
  const m = ready();
  m.approvalEvent(ev('requested', req('old')));
  const mark = m.mark();
  // while approvals.list is in flight: one new request, one decided
  m.approvalEvent(ev('requested', req('new')));
  m.approvalEvent(ev('approved', req('listed-then-approved')));
  m.setPending([req('listed'), req('listed-then-approved')], mark);
  assert.deepEqual([...m.pending.keys()].sort(), ['listed', 'new']);
});

test('decision bookkeeping: busy, errors, forget', () => {
  const m = ready();
  m.setPending([req('r1')]);
  m.deciding('r1', 'once');
  assert.equal(m.busy.get('r1'), 'once');
  m.decideFailed('r1', 'Could not approve: gone');
  assert.equal(m.busy.has('r1'), false);
  assert.equal(m.errors.get('r1'), 'Could not approve: gone');
  m.forget('r1');
  assert.equal(m.pending.size, 0);
  assert.equal(m.errors.size, 0);
  m.setPending([req('r1')]); // a stale list cannot bring it back
  assert.equal(m.pending.size, 0);
  m.approvalEvent(ev('requested', req('r1')));
  assert.equal(m.pending.size, 0);
});

test('consumed and rejected events only add to the timeline', () => {
  const m = ready();
  m.setPending([req('r1')]);
  m.approvalEvent(ev('consumed', req('r1')));
  m.approvalEvent(ev('rejected', req('r1'), { reason: 'replayed' }));
  assert.equal(m.pending.size, 1);
  assert.equal(m.timeline.length, 2);
});

test('the timeline is capped, newest first; malformed events are ignored', () => {
  const m = ready();
  for (let i = 0; i < TIMELINE_MAX + 10; i++) {
    m.approvalEvent(ev('consumed', req(`r${i}`)));
  }
  m.approvalEvent(null);
  m.approvalEvent({ type: 'requested' });
  m.approvalEvent({ request: req('x') });
  assert.equal(m.timeline.length, TIMELINE_MAX);
  assert.equal(m.timeline[0].request_id, `r${TIMELINE_MAX + 9}`);
  assert.equal(m.pending.size, 0);
});

test('sessions counts stdio and http', () => {
  const m = ready({
    health: { transport_status: { stdio: 2, http: 3 } },
  });
  assert.equal(m.sessions(), 5);
  assert.equal(new PanelModel().sessions(), null);
});

test('a ready of a new epoch (the host reconnected to a new daemon) re-fetches', () => {
  const m = ready();
  m.linkChanged({ ...READY, epoch: 1 });
  assert.equal(m.linkChanged({ ...READY, epoch: 1 }), false);
  assert.equal(m.linkChanged({ ...READY, epoch: 2 }), true);
});

test('providers: the chosen one, else the default; an unhealthy one degrades', () => {
  const m = ready();
  assert.equal(m.selectedProvider(), null);
  m.setProviders({
    providers: [
      { name: 'local', healthy: true },
      { name: 'claude', healthy: false, error: 'HTTP 401' },
      { healthy: true }, // no name: dropped
    ],
    default: 'claude',
  });
  assert.deepEqual(
    m.providers.list.map((p) => p.name),
    ['local', 'claude'],
  );
  assert.equal(m.selectedProvider().name, 'claude');
  const p = m.phase(0);
  assert.equal(p.state, 'degraded');
  assert.match(p.detail, /“claude” is not available \(HTTP 401\)/);
  assert.match(p.fix, /Choose another provider/);
  m.provider = 'local';
  assert.equal(m.phase(0).state, 'ready');
  // A provider that disappears falls back to the default.
  m.setProviders({ providers: [{ name: 'claude', healthy: true }] });
  assert.equal(m.provider, null);
  assert.equal(m.selectedProvider().name, 'claude');
});

test('no agent connected but a healthy provider: still degraded, says chat works', () => {
  const m = ready(STATUS(0));
  m.setProviders({ providers: [{ name: 'local', healthy: true }] });
  const p = m.phase(0);
  assert.equal(p.state, 'degraded');
  assert.match(p.detail, /no agent is connected.*chat with the panel’s agent/);
});

test('a broken redaction policy degrades; approvals still come first', () => {
  const m = ready(STATUS(1, { redaction: { error: 'bad regex' } }));
  const p = m.phase(0);
  assert.equal(p.state, 'degraded');
  assert.match(p.detail, /redaction policy is broken.*bad regex/);
  m.approvalEvent(ev('requested', req('r1')));
  assert.equal(m.phase(0).state, 'needs_approval');
});

test('canSend: linked, chat available, no turn running', () => {
  const m = ready();
  assert.equal(m.canSend(), true);
  m.dispatch({ type: 'send', text: 'hi', at: '' });
  assert.equal(m.canSend(), false, 'a turn is running');
  m.dispatch({ type: 'chat_failed', local: 1, error: 'x' });
  assert.equal(m.canSend(), true);
  m.chat = 'unavailable';
  assert.equal(m.canSend(), false);
  m.chat = 'available';
  m.linkChanged({ state: 'closed' });
  assert.equal(m.canSend(), false);
});
