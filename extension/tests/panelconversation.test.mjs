import assert from 'node:assert/strict';
import test from 'node:test';

import {
  CONV_MAX_EVENTS,
  busy,
  emptyConversation,
  normalizeEvent,
  reduceConversation as reduce,
} from '../panel/conversation.js';

const AT = '2030-01-01T00:00:05Z';
const ev = (seq, kind = 'assistant', extra = {}) => ({
  conversation_id: 'c1',
  turn_id: 't1',
  seq,
  kind,
  text: `event ${seq}`,
  at: AT,
  ...extra,
});

/** Applies actions in order from s (default: empty). */
function run(actions, s = emptyConversation()) {
  return actions.reduce((acc, a) => reduce(acc, a), s);
}
const event = (e) => ({ type: 'event', event: e });
/** A conversation c1 whose first message went out (turn t1). */
const started = () =>
  run([
    { type: 'send', text: 'why is the page broken?', at: AT },
    { type: 'started', local: 1, conversation_id: 'c1', turn_id: 't1' },
  ]);
const seqs = (s) => s.events.map((e) => e.seq);

test('the reducer never changes the state it was given', () => {
  const s0 = started();
  const frozen = JSON.stringify(s0);
  const s1 = run(
    [event(ev(1, 'user')), event(ev(3)), { type: 'new' }, { type: 'lost' }],
    s0,
  );
  assert.equal(JSON.stringify(s0), frozen);
  assert.notEqual(s1, s0);
  assert.equal(reduce(s0, { type: 'nonsense' }), s0);
  assert.equal(reduce(s0, undefined), s0);
});

test('send, started, the echo and done: a turn from start to end', () => {
  let s = reduce(emptyConversation(), {
    type: 'send',
    text: 'why is the page broken?',
    at: AT,
  });
  assert.equal(busy(s), true, 'busy while panel.chat is on its way');
  assert.deepEqual(s.outbox, [
    { local: 1, text: 'why is the page broken?', at: AT },
  ]);
  s = reduce(s, {
    type: 'started',
    local: 1,
    conversation_id: 'c1',
    turn_id: 't1',
  });
  assert.equal(s.id, 'c1');
  assert.equal(s.running, 't1');
  assert.equal(s.outbox[0].turn_id, 't1');
  s = run([event(ev(1, 'user', { text: 'why is the page broken?' }))], s);
  assert.deepEqual(s.outbox, [], 'the echo replaces the local message');
  s = run([event(ev(2)), event(ev(3, 'done'))], s);
  assert.deepEqual(seqs(s), [1, 2, 3]);
  assert.equal(s.cursor, 3);
  assert.equal(busy(s), false);
  assert.equal(s.needHistory, false);
});

test('events are kept in seq order and repeats are dropped', () => {
  const s = run(
    [
      event(ev(1, 'user')),
      event(ev(3)),
      event(ev(2, 'tool_call')),
      event(ev(2, 'tool_call', { text: 'a repeat' })),
      event(ev(1, 'user')),
      event(ev(3)),
    ],
    started(),
  );
  assert.deepEqual(seqs(s), [1, 2, 3]);
  assert.equal(s.events[1].text, 'event 2');
  assert.equal(s.cursor, 3);
  assert.deepEqual(s.ahead, []);
});

test('a gap asks for history; history fills it and moves the cursor', () => {
  let s = run([event(ev(1, 'user')), event(ev(4)), event(ev(5))], started());
  assert.equal(s.cursor, 1);
  assert.deepEqual(s.ahead, [4, 5]);
  assert.equal(s.needHistory, true);
  s = reduce(s, {
    type: 'history',
    conversation_id: 'c1',
    result: {
      conversation_id: 'c1',
      events: [ev(2, 'tool_call'), ev(3, 'tool_result', { ok: true }), ev(4)],
      lost: false,
    },
  });
  assert.deepEqual(seqs(s), [1, 2, 3, 4, 5]);
  assert.equal(s.cursor, 5);
  assert.equal(s.needHistory, false);
  assert.equal(s.events[2].ok, true);
});

test('history that cannot fill a gap still ends it (no request loop)', () => {
  let s = run([event(ev(1, 'user')), event(ev(7))], started());
  s = reduce(s, {
    type: 'history',
    conversation_id: 'c1',
    result: { conversation_id: 'c1', events: [], lost: false },
  });
  assert.equal(s.needHistory, false);
  assert.equal(s.cursor, 7);
  s = reduce(s, event(ev(8)));
  assert.equal(s.needHistory, false, 'the next one is contiguous');
});

test('a lost conversation says so and starts fresh', () => {
  let s = run([event(ev(1, 'user')), event(ev(2))], started());
  s = reduce(s, {
    type: 'history',
    conversation_id: 'c1',
    result: { conversation_id: 'c1', events: [], lost: true },
  });
  assert.equal(s.id, null);
  assert.equal(s.notice, 'lost');
  assert.deepEqual(s.events, []);
  assert.equal(s.cursor, 0);
  assert.equal(busy(s), false);
  // The next message clears the notice.
  s = reduce(s, { type: 'send', text: 'again', at: AT });
  assert.equal(s.notice, null);
});

test('a lost answer for another conversation changes nothing', () => {
  const s = run([{ type: 'new' }], started());
  const after = reduce(s, {
    type: 'history',
    conversation_id: 'c1',
    result: { lost: true },
  });
  assert.equal(after, s);
});

test('restore fetches the whole conversation after the panel reopens', () => {
  let s = reduce(emptyConversation(), {
    type: 'restore',
    conversation_id: 'c1',
  });
  assert.equal(s.id, 'c1');
  assert.equal(s.cursor, 0);
  assert.equal(s.needHistory, true);
  s = reduce(s, {
    type: 'history',
    conversation_id: 'c1',
    result: {
      conversation_id: 'c1',
      events: [ev(2), ev(1, 'user'), ev(3, 'done')],
    },
  });
  assert.deepEqual(seqs(s), [1, 2, 3]);
  assert.equal(s.cursor, 3);
});

test('a late restore does not wipe a message being sent', () => {
  const s = reduce(emptyConversation(), { type: 'send', text: 'hi', at: AT });
  assert.equal(reduce(s, { type: 'restore', conversation_id: 'c0' }), s);
  const ready = started();
  assert.equal(
    reduce(ready, { type: 'restore', conversation_id: 'c0' }),
    ready,
  );
});

test('pushes that beat the panel.chat answer are parked, then adopted', () => {
  let s = reduce(emptyConversation(), {
    type: 'send',
    text: 'hi',
    at: AT,
  });
  s = run(
    [
      event(ev(2, 'assistant', { conversation_id: 'c9', turn_id: 'tX' })),
      event(ev(1, 'user', { conversation_id: 'c9', turn_id: 'tX' })),
      event(ev(1, 'user', { conversation_id: 'other', turn_id: 'tO' })),
      event(ev(3, 'done', { conversation_id: 'c9', turn_id: 'tX' })),
    ],
    s,
  );
  assert.equal(s.parked.length, 4);
  assert.deepEqual(s.events, []);
  s = reduce(s, {
    type: 'started',
    local: 1,
    conversation_id: 'c9',
    turn_id: 'tX',
  });
  assert.deepEqual(seqs(s), [1, 2, 3]);
  assert.deepEqual(s.parked, []);
  assert.equal(s.needHistory, false);
  assert.equal(busy(s), false, 'its done came first');
  assert.deepEqual(s.outbox, []);
});

test('events of another conversation are ignored', () => {
  const s = started();
  const after = reduce(s, event(ev(1, 'user', { conversation_id: 'c2' })));
  assert.equal(after, s);
});

test('unknown kinds are skipped but move the cursor; bad events are ignored', () => {
  let s = run(
    [event(ev(1, 'user')), event(ev(2, 'telepathy')), event(ev(3))],
    started(),
  );
  assert.deepEqual(seqs(s), [1, 3]);
  assert.equal(s.cursor, 3);
  assert.equal(s.needHistory, false);
  for (const bad of [
    null,
    'text',
    42,
    {},
    ev(0),
    ev(-1),
    ev(1.5),
    ev('4'),
    { ...ev(4), seq: undefined },
  ]) {
    const before = s;
    s = reduce(s, event(bad));
    assert.equal(s, before, JSON.stringify(bad));
  }
});

test('fields are normalized: strings only, long text cut, evidence kinds', () => {
  const e = normalizeEvent({
    ...ev(5, 'evidence'),
    text: { toString: () => '<b>x</b>' },
    evidence: {
      kind: 'teleport',
      title: 'TypeError: x is undefined',
      detail: 7,
      url: 'https://shop.example/app.js',
      at: AT,
    },
    redaction: { policy_version: 3, redacted_count: 'many', blocked_count: 1 },
  });
  assert.equal(e.text, '');
  assert.deepEqual(e.evidence, {
    kind: 'other',
    title: 'TypeError: x is undefined',
    detail: '',
    url: 'https://shop.example/app.js',
    at: AT,
  });
  assert.deepEqual(e.redaction, {
    policy_version: 3,
    redacted_count: null,
    blocked_count: 1,
  });
  const long = normalizeEvent(ev(6, 'assistant', { text: 'x'.repeat(30_000) }));
  assert.equal(long.text.length, 20_001);
});

test('the newest redaction counters win, whatever the arrival order', () => {
  const red = (n) => ({
    policy_version: 2,
    redacted_count: n,
    blocked_count: 0,
  });
  const s = run(
    [
      event(ev(1, 'user', { redaction: red(1) })),
      event(ev(3, 'assistant', { redaction: red(4) })),
      event(ev(2, 'tool_result', { redaction: red(2) })),
    ],
    started(),
  );
  assert.equal(s.redaction.redacted_count, 4);
  assert.equal(s.redaction.seq, 3);
});

test('an error event ends the turn', () => {
  const s = run(
    [
      event(ev(1, 'user')),
      event(ev(2, 'error', { text: 'provider openai: 401' })),
    ],
    started(),
  );
  assert.equal(busy(s), false);
  assert.equal(s.events[1].kind, 'error');
});

test('panel.chat failing marks the message and frees the composer', () => {
  const s = run([
    { type: 'send', text: 'hi', at: AT },
    { type: 'chat_failed', local: 1, error: 'provider unavailable' },
  ]);
  assert.equal(busy(s), false);
  assert.equal(s.outbox[0].failed, 'provider unavailable');
});

test('a different conversation id from panel.chat replaces the old one', () => {
  let s = run([event(ev(1, 'user')), event(ev(2, 'done'))], started());
  s = run(
    [
      { type: 'send', text: 'next', at: AT },
      { type: 'started', local: 2, conversation_id: 'c2', turn_id: 't2' },
    ],
    s,
  );
  assert.equal(s.id, 'c2');
  assert.deepEqual(s.events, []);
  assert.equal(s.notice, 'lost');
  assert.equal(s.outbox.length, 1);
  assert.equal(s.running, 't2');
});

test('memory is bounded', () => {
  let s = started();
  for (let i = 1; i <= CONV_MAX_EVENTS + 20; i++) s = reduce(s, event(ev(i)));
  assert.equal(s.events.length, CONV_MAX_EVENTS);
  assert.equal(s.events[0].seq, 21);
  assert.equal(s.cursor, CONV_MAX_EVENTS + 20);
});

test('view: an un-echoed message sits before its turn’s first event', async () => {
  const { conversationView } = await import('../panel/chatview.js');
  const s = run(
    [
      event(ev(1, 'tool_call', { tool: 'observe', mode: 'errors' })),
      event(ev(2, 'assistant', { text: 'done' })),
    ],
    started(),
  );
  const rows = conversationView({ conv: s });
  assert.deepEqual(
    rows.map((r) => [r.key, r.kind]),
    [
      ['l1', 'user'],
      ['s1', 'tool_call'],
      ['s2', 'assistant'],
    ],
  );
  assert.equal(rows[0].sending, false, 'panel.chat answered');
  assert.equal(rows[1].label, 'Calls observe.errors');
});
