// View models of the conversation card: plain data computed from the
// PanelModel's conversation state, tested without a DOM; chatdom.js copies
// these strings into elements with textContent.

import { NONE, clock, counter } from './view.js';

const EVIDENCE_LABELS = Object.freeze({
  error: 'Error',
  network: 'Network failure',
  action: 'Action',
  tool: 'Tool result',
  other: 'Evidence',
});

/** "interact.click", "interact" or "tool". */
function toolName(e) {
  if (e.tool && e.mode) return `${e.tool}.${e.mode}`;
  return e.tool || e.mode || 'tool';
}

/** One shown event as plain data; key is stable across renders. */
function entryView(e) {
  const base = { key: `s${e.seq}`, kind: e.kind, time: clock(e.at) };
  switch (e.kind) {
    case 'user':
      return { ...base, who: 'You', text: e.text };
    case 'assistant':
      return { ...base, who: 'Agent', text: e.text };
    case 'tool_call':
      return { ...base, label: `Calls ${toolName(e)}`, text: e.text };
    case 'tool_result': {
      const failed = e.ok === false;
      return {
        ...base,
        label: `${toolName(e)} ${failed ? 'failed' : 'answered'}`,
        ok: !failed,
        text: e.text,
      };
    }
    case 'evidence': {
      const ev = e.evidence ?? { kind: 'other' };
      return {
        ...base,
        evidence: ev.kind,
        label: EVIDENCE_LABELS[ev.kind] ?? EVIDENCE_LABELS.other,
        title: ev.title || e.text || NONE,
        detail: ev.detail ?? '',
        url: ev.url ?? '',
        time: clock(ev.at || e.at),
      };
    }
    case 'approval':
      return {
        ...base,
        label: 'Waiting for your approval',
        text: e.text || 'The agent asked to make a change; decide above.',
      };
    case 'error':
      return {
        ...base,
        label: 'Something went wrong',
        text: e.text || 'The agent stopped with an error.',
      };
    default:
      return null; // done: ends the turn, shows nothing
  }
}

function outboxView(m) {
  return {
    key: `l${m.local}`,
    kind: 'user',
    who: 'You',
    text: m.text,
    time: clock(m.at),
    sending: !m.turn_id && !m.failed,
    failed: m.failed ? `Not sent: ${m.failed}` : '',
  };
}

/**
 * The conversation's entries in order: the daemon's events by seq, and the
 * user's messages the daemon has not echoed yet — before the first event of
 * their turn, or at the end while their turn has none.
 */
export function conversationView(model) {
  const conv = model.conv;
  const echoed = new Set(
    conv.events.filter((e) => e.kind === 'user').map((e) => e.turn_id),
  );
  const waiting = conv.outbox.filter((m) => !echoed.has(m.turn_id));
  const out = [];
  for (const e of conv.events) {
    const i = waiting.findIndex((m) => m.turn_id && m.turn_id === e.turn_id);
    if (i >= 0) out.push(outboxView(waiting.splice(i, 1)[0]));
    const vm = entryView(e);
    if (vm) out.push(vm);
  }
  for (const m of waiting) out.push(outboxView(m));
  return out;
}

/** What the conversation says when it is empty, and the lost notice. */
export function conversationNotes(model) {
  const lost =
    model.conv.notice === 'lost'
      ? 'This conversation was lost (the daemon restarted). A new one ' +
        'starts with your next message.'
      : '';
  const empty =
    model.chat === 'unavailable'
      ? 'This Gasoline daemon has no chat. Update gasoline-host to talk to ' +
        'an agent here.'
      : 'Ask the agent about this page: it can read the tab, its errors ' +
        'and network, and asks you above before it changes anything.';
  return { lost, empty };
}

/** The redaction counters of the conversation, or '' before any. */
export function redactionText(model) {
  const r = model.conv.redaction;
  if (!r) return '';
  const parts = [];
  if (typeof r.policy_version === 'string') {
    parts.push(`Redaction ${r.policy_version}`);
  } else if (Number.isFinite(r.policy_version)) {
    parts.push(`Redaction policy v${r.policy_version}`);
  }
  parts.push(`${counter(r.redacted_count)} redacted`);
  parts.push(`${counter(r.blocked_count)} blocked`);
  return parts.join(' · ');
}

/** The provider selector: options, the selected name, and its health. */
export function providersView(model) {
  const list = model.providers?.list ?? [];
  const selected = model.selectedProvider();
  return {
    options: list.map((p) => ({
      value: p.name,
      label: p.healthy === false ? `${p.name} (unavailable)` : p.name,
    })),
    selected: selected?.name ?? '',
    problem:
      selected && selected.healthy === false
        ? `${selected.name} is not available${selected.error ? `: ${selected.error}` : ''}`
        : (model.providersError ?? ''),
  };
}

/**
 * The message box: the user may type the next message while the agent
 * works (typing: linked and chat available); sending waits for the turn.
 */
export function composerView(model, canSend) {
  const running = model.conv.running !== null;
  const linked = model.port === 'open' && model.link?.state === 'ready';
  let hint = '';
  if (model.chat === 'unavailable') hint = 'Chat is not available.';
  else if (!linked) hint = 'Chat is back once Gasoline is connected.';
  else if (running) hint = 'The agent is working…';
  return {
    typing: linked && model.chat !== 'unavailable',
    enabled: canSend,
    running,
    hint,
  };
}

/** The export line under the conversation. */
export function exportView(model) {
  const x = model.exported;
  if (!x) return { busy: false, text: '', url: '', name: '', error: false };
  if (x.busy) {
    return { busy: true, text: 'Exporting…', url: '', name: '', error: false };
  }
  if (x.error) {
    return { busy: false, text: x.error, url: '', name: '', error: true };
  }
  const kb = (x.size / 1024).toFixed(1);
  return {
    busy: false,
    text: `Redacted export ready (${kb} KB): `,
    url: typeof x.url === 'string' && x.url.startsWith('blob:') ? x.url : '',
    name: x.name,
    error: false,
  };
}

/** Session metadata rows appended to the status. */
export function sessionRows(model) {
  const p = model.selectedProvider();
  const provider =
    model.chat === 'unavailable'
      ? 'no chat in this daemon'
      : p
        ? `${p.name} (${p.healthy === false ? 'unavailable' : 'healthy'})`
        : NONE;
  return [
    ['Conversation', model.conv.id ?? 'new'],
    ['Model provider', provider],
  ];
}
