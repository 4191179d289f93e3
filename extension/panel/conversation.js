// The panel's conversation with the daemon's agent, as a pure reducer:
// reduceConversation(state, action) returns the next state and never
// changes the one it was given. The daemon numbers each conversation's
// events with seq (1, 2, 3, …); the panel keeps them in seq order, drops
// repeats, notices gaps (a push lost while the worker restarted) and asks
// for the missing ones with panel.history {conversation_id, after_seq}.
// No DOM, no chrome.*, no clock: every time is passed in.

/** Event kinds the panel shows; anything else is skipped (but counted). */
export const EVENT_KINDS = Object.freeze([
  'user',
  'assistant',
  'tool_call',
  'tool_result',
  'evidence',
  'approval',
  'error',
  'done',
]);
const KINDS = new Set(EVENT_KINDS);
const EVIDENCE_KINDS = new Set(['error', 'network', 'action', 'tool']);

/** Events kept in memory; older ones are dropped (export has them all). */
export const CONV_MAX_EVENTS = 500;
/** Pushes held back while a panel.chat answer is on its way. */
export const PARKED_MAX = 200;
/** Finished turns remembered (a done may beat its panel.chat answer). */
const ENDED_MAX = 50;
/** Longest text kept per field, in UTF-16 units. */
export const TEXT_MAX = 20_000;

/**
 * A conversation with nothing in it yet.
 * @param {string|null} [notice] 'lost' when the last one was lost
 */
export function emptyConversation(notice = null) {
  return Object.freeze({
    id: null, // conversation_id, once the daemon gave one
    events: [], // shown events, by seq
    cursor: 0, // every seq ≤ cursor has been received
    ahead: [], // seqs received past a gap, ascending
    needHistory: false, // a gap (or a restore) wants panel.history
    running: null, // turn_id of the turn in flight, or '' before its id
    ended: [], // turn ids that have finished
    outbox: [], // the user's messages not yet echoed by the daemon
    parked: [], // pushes that came before the panel.chat answer
    redaction: null, // the latest {policy_version, redacted_count, blocked_count}
    notice,
    nextLocal: 1,
  });
}

function text(v) {
  if (typeof v !== 'string') return '';
  return v.length > TEXT_MAX ? `${v.slice(0, TEXT_MAX)}…` : v;
}

function counters(r) {
  if (!r || typeof r !== 'object') return null;
  const n = (v) => (Number.isFinite(v) ? v : null);
  const v = r.policy_version;
  return {
    // "gasoline-redact/1" from the daemon; a number in older drafts.
    policy_version: (typeof v === 'string' && v) || n(v),
    redacted_count: n(r.redacted_count),
    blocked_count: n(r.blocked_count),
  };
}

function evidence(e) {
  if (!e || typeof e !== 'object') return null;
  return {
    kind: EVIDENCE_KINDS.has(e.kind) ? e.kind : 'other',
    title: text(e.title),
    detail: text(e.detail),
    url: text(e.url),
    at: text(e.at),
  };
}

/**
 * The parts of a panel.event the panel uses, or null when it is not one
 * (no integer seq ≥ 1). Unknown kinds keep their seq but show nothing.
 */
export function normalizeEvent(ev) {
  if (!ev || typeof ev !== 'object') return null;
  if (!Number.isInteger(ev.seq) || ev.seq < 1) return null;
  const out = {
    seq: ev.seq,
    conversation_id: text(ev.conversation_id),
    turn_id: text(ev.turn_id),
    kind: KINDS.has(ev.kind) ? ev.kind : null,
    text: text(ev.text),
    tool: text(ev.tool),
    mode: text(ev.mode),
    at: text(ev.at),
  };
  if (typeof ev.ok === 'boolean') out.ok = ev.ok;
  if (out.kind === 'evidence') out.evidence = evidence(ev.evidence);
  const red = counters(ev.redaction);
  if (red) out.redaction = red;
  return out;
}

function remember(list, item, max) {
  if (list.includes(item)) return list;
  const next = [...list, item];
  return next.length > max ? next.slice(next.length - max) : next;
}

/** Whether seq was received already. */
function seen(s, seq) {
  return seq <= s.cursor || s.ahead.includes(seq);
}

/**
 * Adds one event (already normalized, of this conversation) to s: kept in
 * seq order, a repeat ignored, the cursor moved over contiguous seqs.
 * @returns a new state
 */
function addEvent(s, e) {
  if (seen(s, e.seq)) return s;
  const next = { ...s };
  // The cursor and the gap.
  if (e.seq === s.cursor + 1) {
    let cursor = e.seq;
    const ahead = [...s.ahead];
    while (ahead[0] === cursor + 1) cursor = ahead.shift();
    next.cursor = cursor;
    next.ahead = ahead;
  } else {
    next.ahead = [...s.ahead, e.seq].sort((a, b) => a - b);
    next.needHistory = true;
  }
  if (!e.kind) return next; // unknown kind: counted, never shown
  // The event, in seq order.
  const events = [...s.events];
  let i = events.length;
  while (i > 0 && events[i - 1].seq > e.seq) i -= 1;
  events.splice(i, 0, e);
  next.events =
    events.length > CONV_MAX_EVENTS
      ? events.slice(events.length - CONV_MAX_EVENTS)
      : events;
  // The newest counters win.
  if (e.redaction && (!s.redaction || e.seq > (s.redaction.seq ?? 0))) {
    next.redaction = { ...e.redaction, seq: e.seq };
  }
  if (e.kind === 'user' && e.turn_id) {
    next.outbox = s.outbox.filter((m) => m.turn_id !== e.turn_id);
  }
  if ((e.kind === 'done' || e.kind === 'error') && e.turn_id) {
    next.ended = remember(s.ended, e.turn_id, ENDED_MAX);
    if (s.running === e.turn_id) next.running = null;
  }
  return next;
}

/** Whether a panel.chat answer is still awaited. */
function awaitingStart(s) {
  return s.outbox.some((m) => !m.turn_id && !m.failed);
}

function onEvent(s, raw) {
  const e = normalizeEvent(raw);
  if (!e) return s;
  if (s.id && e.conversation_id === s.id) return addEvent(s, e);
  // Not (yet) ours: a reply to our panel.chat may still be on its way, and
  // the daemon may have pushed the turn's first events before it.
  if (awaitingStart(s)) {
    const parked = [...s.parked, e];
    return {
      ...s,
      parked:
        parked.length > PARKED_MAX
          ? parked.slice(parked.length - PARKED_MAX)
          : parked,
    };
  }
  return s; // another panel's conversation
}

/** The user sent a message: shown at once, marked as sending. */
function onSend(s, a) {
  const msg = { local: s.nextLocal, text: text(a.text), at: a.at ?? '' };
  return {
    ...s,
    outbox: [...s.outbox, msg],
    nextLocal: s.nextLocal + 1,
    running: '',
    notice: a.keepNotice ? s.notice : null,
  };
}

/** The panel.chat answer: {conversation_id, turn_id}. */
function onStarted(s, a) {
  const id = text(a.conversation_id);
  const turn = text(a.turn_id);
  let next = s;
  if (id && id !== s.id) {
    // A new conversation (the first message, or the daemon forgot ours).
    const fresh = emptyConversation(s.id ? 'lost' : null);
    next = {
      ...fresh,
      outbox: s.outbox,
      parked: s.parked,
      nextLocal: s.nextLocal,
      id,
    };
  }
  next = {
    ...next,
    outbox: next.outbox.map((m) =>
      m.local === a.local ? { ...m, turn_id: turn } : m,
    ),
    running: next.ended.includes(turn) ? null : turn,
  };
  // The pushes that came first, in seq order.
  const mine = next.parked
    .filter((e) => e.conversation_id === next.id)
    .sort((x, y) => x.seq - y.seq);
  next = { ...next, parked: next.parked.filter((e) => !mine.includes(e)) };
  for (const e of mine) next = addEvent(next, e);
  if (next.ended.includes(turn)) next = { ...next, running: null };
  if (!awaitingStart(next)) next = { ...next, parked: [] };
  return next;
}

function onChatFailed(s, a) {
  const outbox = s.outbox.map((m) =>
    m.local === a.local ? { ...m, failed: text(a.error) || 'failed' } : m,
  );
  const next = { ...s, outbox, running: null };
  return awaitingStart(next) ? next : { ...next, parked: [] };
}

/** The panel.history answer for a request made with after_seq. */
function onHistory(s, a) {
  const res = a.result ?? {};
  if (res.lost === true) {
    if (a.conversation_id && a.conversation_id !== s.id) return s; // stale
    return emptyConversation('lost');
  }
  const id = text(res.conversation_id) || a.conversation_id;
  if (!s.id || id !== s.id) return s; // an answer for another conversation
  let next = s;
  const events = Array.isArray(res.events) ? res.events : [];
  let top = s.cursor;
  for (const raw of events) {
    const e = normalizeEvent(raw);
    if (!e) continue;
    if (e.conversation_id && e.conversation_id !== s.id) continue;
    e.conversation_id = s.id;
    next = addEvent(next, e);
    top = Math.max(top, e.seq);
  }
  // The daemon sent all it has after after_seq: what is still missing
  // below the newest seq will never come.
  top = Math.max(top, ...next.ahead);
  return {
    ...next,
    cursor: Math.max(next.cursor, top),
    ahead: [],
    needHistory: false,
  };
}

/**
 * The conversation's reducer.
 * Actions:
 *  - {type: 'send', text, at, keepNotice}: the user's message, before
 *    panel.chat (keepNotice: a resend after a loss keeps saying so)
 *  - {type: 'started', local, conversation_id, turn_id}: panel.chat answered
 *  - {type: 'chat_failed', local, error}: panel.chat failed
 *  - {type: 'event', event}: a panel.event push
 *  - {type: 'history', conversation_id, result}: a panel.history answer
 *  - {type: 'restore', conversation_id}: reopened; fetch it all again
 *  - {type: 'lost'}: the daemon no longer has it
 *  - {type: 'new'}: the user starts over
 * @returns the next state (the same object when nothing changed)
 */
export function reduceConversation(s, a) {
  switch (a?.type) {
    case 'send':
      return onSend(s, a);
    case 'started':
      return onStarted(s, a);
    case 'chat_failed':
      return onChatFailed(s, a);
    case 'event':
      return onEvent(s, a.event);
    case 'history':
      return onHistory(s, a);
    case 'restore': {
      const id = text(a.conversation_id);
      if (!id || s.id || s.outbox.length > 0) return s; // already chatting
      return { ...emptyConversation(), id, needHistory: true };
    }
    case 'lost':
      return emptyConversation('lost');
    case 'new':
      return emptyConversation();
    default:
      return s;
  }
}

/** Whether a turn is in flight (sending, or waiting for done). */
export function busy(s) {
  return s.running !== null;
}
