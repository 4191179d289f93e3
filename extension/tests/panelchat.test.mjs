import assert from 'node:assert/strict';
import test from 'node:test';

import { Backoff } from '../lib/backoff.js';
import { PanelController } from '../panel/controller.js';
import { wireChat } from '../panel/chatdom.js';
import { bind, renderer } from '../panel/dom.js';
import { FakeTimers, flush } from './fakes.mjs';
import {
  FakePanelPort,
  clickRequest as click,
  fakeDocument,
} from './panelfakes.mjs';

const T0 = Date.parse('2030-01-01T00:00:00Z');
const AT = '2030-01-01T00:00:05Z';
const READY = { state: 'ready', epoch: 1, daemon: { version: '0.1.0' } };
const STATUS = {
  health: {
    version: '0.1.0',
    pid: 42,
    transport_status: { stdio: 0, http: 1 },
  },
  pending_approvals: 0,
  policy_version: 0,
};
const PROVIDERS = {
  providers: [
    { name: 'local', healthy: true },
    { name: 'openai', healthy: false, error: 'no api key configured' },
  ],
  default: 'local',
};
const ev = (seq, kind, extra = {}) => ({
  conversation_id: 'c1',
  turn_id: 't1',
  seq,
  kind,
  at: AT,
  ...extra,
});

function setup({ saved, tab = { id: 7, url: 'https://shop.example/' } } = {}) {
  const doc = fakeDocument();
  const els = bind(doc);
  const timers = new FakeTimers();
  const ports = [];
  const stored = [];
  const downloads = [];
  const controller = new PanelController({
    connect: () => {
      const p = new FakePanelPort();
      ports.push(p);
      return p;
    },
    render: renderer(els, (id, d, m) => controller.decide(id, d, m)),
    timers,
    now: () => T0,
    backoff: new Backoff({ random: () => 0.5 }),
    storage: {
      get: async () => saved,
      set: async (v) => stored.push(v),
    },
    activeTab: async () => tab,
    download: (name, text) => {
      downloads.push({ name, text });
      return 'blob:chrome-extension://x/1234';
    },
  });
  wireChat(els, controller);
  const port = () => ports.at(-1);
  const answer = async (method, reply) => {
    const req = port().requests(method).at(-1);
    assert.ok(req, `no ${method} request`);
    port().deliver({ id: req.id, ...reply });
    await flush();
    return req;
  };
  const push = (params) => port().deliver({ method: 'panel.event', params });
  /** Starts and answers the ready-time requests. */
  const open = async ({
    providers = { result: PROVIDERS },
    pending = [],
  } = {}) => {
    await controller.start();
    port().deliver({ method: 'link.state', params: READY });
    await answer('approvals.list', { result: { pending } });
    await answer('panel.status', { result: STATUS });
    await answer('panel.providers', providers);
  };
  /** Types text and presses Enter. */
  const type = async (text) => {
    els.input.value = text;
    const e = els.input.emit('keydown', { key: 'Enter', shiftKey: false });
    assert.equal(e.defaultPrevented, true, 'Enter does not add a newline');
    await flush();
  };
  const entries = () =>
    els.conversation.children.map((li) => ({
      kind: li.dataset.kind,
      text: li.textContent,
    }));
  return {
    els,
    controller,
    ports,
    port,
    answer,
    push,
    open,
    type,
    entries,
    stored,
    downloads,
    timers,
  };
}

test('the provider selector lists the daemon’s providers with their health', async () => {
  const { els, open } = setup();
  await open();
  assert.deepEqual(
    els.provider.children.map((o) => [o.value, o.textContent]),
    [
      ['local', 'local'],
      ['openai', 'openai (unavailable)'],
    ],
  );
  assert.equal(els.provider.value, 'local');
  assert.equal(els.provider.disabled, false);
  assert.equal(els.input.disabled, false);
  assert.equal(els.send.disabled, false);
  assert.equal(els.noConversation.hidden, false);
  const session = els.status.children.map((c) => c.textContent).slice(-4);
  assert.deepEqual(session, [
    'Conversation',
    'new',
    'Model provider',
    'local (healthy)',
  ]);
});

test('choosing an unhealthy provider degrades the panel and says why', async () => {
  const { els, open } = setup();
  await open();
  els.provider.value = 'openai';
  els.provider.emit('change');
  assert.equal(els.badge.textContent, 'Degraded');
  assert.match(els.detail.textContent, /“openai” is not available/);
  assert.match(els.detail.textContent, /no api key configured/);
  assert.equal(els.providerProblem.hidden, false);
  assert.match(els.providerProblem.textContent, /^openai is not available/);
});

test('a message goes out, the turn comes back as events, in seq order', async () => {
  const { els, port, open, type, answer, push, entries, stored } = setup();
  await open();
  await type('  Why does checkout fail?  ');
  const req = port().requests('panel.chat').at(-1);
  assert.deepEqual(req.params, {
    message: 'Why does checkout fail?',
    provider: 'local',
    tab_id: 7,
  });
  assert.equal(els.input.value, '', 'the box is cleared');
  assert.equal(entries().length, 1);
  assert.equal(entries()[0].kind, 'user');
  assert.match(entries()[0].text, /^You.*Why does checkout fail\?Sending…$/);
  assert.equal(els.send.disabled, true, 'one turn at a time');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  assert.deepEqual(stored.at(-1), { conversation_id: 'c1' });
  const red = { policy_version: 3, redacted_count: 2, blocked_count: 1 };
  // Out of order, with a repeat.
  push(ev(2, 'tool_call', { tool: 'observe', mode: 'errors', text: '{}' }));
  push(ev(1, 'user', { text: 'Why does checkout fail?' }));
  push(
    ev(3, 'tool_result', {
      tool: 'observe',
      mode: 'errors',
      ok: true,
      text: '1 error',
    }),
  );
  push(ev(2, 'tool_call', { tool: 'observe', mode: 'errors', text: '{}' }));
  push(
    ev(4, 'evidence', {
      evidence: {
        kind: 'network',
        title: 'POST /api/pay → 500',
        detail: 'Internal Server Error',
        url: 'https://shop.example/api/pay',
        at: AT,
      },
      redaction: red,
    }),
  );
  push(
    ev(5, 'assistant', {
      text: 'The payment API answers 500 <img src=x onerror=alert(1)>',
      redaction: red,
    }),
  );
  assert.equal(els.send.disabled, true, 'still working');
  assert.equal(els.hint.textContent, 'The agent is working…');
  // The next message can be typed meanwhile, but waits for the turn.
  assert.equal(els.input.disabled, false);
  els.input.value = 'and then?';
  els.input.emit('keydown', { key: 'Enter', shiftKey: false });
  assert.equal(els.input.value, 'and then?', 'kept, not sent');
  push(ev(6, 'done'));
  const kinds = entries().map((e) => e.kind);
  assert.deepEqual(kinds, [
    'user',
    'tool_call',
    'tool_result',
    'evidence',
    'assistant',
  ]);
  const [user, call, result, evidence, reply] = els.conversation.children;
  assert.equal(
    user.querySelector('.text').textContent,
    'Why does checkout fail?',
  );
  assert.equal(user.querySelector('.sending'), null);
  assert.equal(
    call.querySelector('.label').textContent,
    'Calls observe.errors',
  );
  assert.equal(
    result.querySelector('.label').textContent,
    'observe.errors answered',
  );
  assert.equal(result.querySelector('.text').textContent, '1 error');
  assert.equal(
    result.querySelector('summary').textContent,
    'Show the result (7 chars)',
  );
  assert.equal(evidence.querySelector('.tag').textContent, 'Network failure');
  assert.equal(evidence.classList.contains('evidence-network'), true);
  assert.equal(
    evidence.querySelector('.title').textContent,
    'POST /api/pay → 500',
  );
  assert.equal(
    evidence.querySelector('.url').textContent,
    'https://shop.example/api/pay',
  );
  // Text only: markup stays text.
  assert.equal(
    reply.querySelector('.text').textContent,
    'The payment API answers 500 <img src=x onerror=alert(1)>',
  );
  assert.equal(reply.querySelector('img'), null);
  assert.equal(els.redaction.hidden, false);
  assert.equal(
    els.redaction.textContent,
    'Redaction policy v3 · 2 redacted · 1 blocked',
  );
  assert.equal(els.send.disabled, false, 'done frees the composer');
  assert.equal(port().requests('panel.chat').length, 1);
  assert.equal(els.noConversation.hidden, true);
});

test('the second message continues the conversation', async () => {
  const { port, open, type, answer, push } = setup();
  await open();
  await type('first');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'first' }));
  push(ev(2, 'done'));
  await type('second');
  assert.equal(
    port().requests('panel.chat').at(-1).params.conversation_id,
    'c1',
  );
});

test('Shift+Enter is a new line, not a send', async () => {
  const { els, port, open } = setup();
  await open();
  els.input.value = 'line';
  const e = els.input.emit('keydown', { key: 'Enter', shiftKey: true });
  assert.equal(e.defaultPrevented, false);
  assert.equal(port().requests('panel.chat').length, 0);
  els.composer.emit('submit');
  await flush();
  assert.equal(port().requests('panel.chat').length, 1);
});

test('no tab_id when the active tab is not a web page', async () => {
  const { port, open, type } = setup({ tab: null });
  await open();
  await type('hello');
  assert.equal('tab_id' in port().requests('panel.chat').at(-1).params, false);
});

test('a provider failure is an error card; the panel keeps working', async () => {
  const { els, open, type, answer, push } = setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'hello' }));
  push(ev(2, 'error', { text: 'the model provider failed: HTTP 503' }));
  const card = els.conversation.children.at(-1);
  assert.equal(card.dataset.kind, 'error');
  assert.equal(card.getAttribute('role'), 'alert');
  assert.equal(
    card.querySelector('.label').textContent,
    'Something went wrong',
  );
  assert.equal(
    card.querySelector('.text').textContent,
    'the model provider failed: HTTP 503',
  );
  assert.equal(els.send.disabled, false);
  assert.equal(els.badge.textContent, 'Ready');
});

test('panel.chat refused: the message says it was not sent', async () => {
  const { els, open, type, answer } = setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    error: { code: 'provider_error', message: 'openai: no api key' },
  });
  const li = els.conversation.children[0];
  assert.equal(li.classList.contains('failed'), true);
  assert.equal(
    li.querySelector('.error').textContent,
    'Not sent: openai: no api key',
  );
  assert.equal(els.send.disabled, false);
});

test('a daemon without chat: the composer is off and says why', async () => {
  const { els, open, port } = setup();
  await open({
    providers: {
      error: { code: 'unknown_method', message: 'no method panel.providers' },
    },
  });
  assert.equal(els.input.disabled, true);
  assert.equal(els.hint.textContent, 'Chat is not available.');
  assert.match(els.noConversation.textContent, /has no chat/);
  assert.equal(els.badge.textContent, 'Ready', 'approvals still work');
  assert.equal(port().requests('panel.history').length, 0);
});

test('unknown push kinds and other conversations are ignored safely', async () => {
  const { els, open, type, answer, push, entries } = setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'hello' }));
  push(ev(2, 'hologram', { text: 'should not show' }));
  push(ev(1, 'assistant', { conversation_id: 'c2', text: 'not ours' }));
  push(null);
  push('junk');
  assert.deepEqual(
    entries().map((e) => e.kind),
    ['user'],
  );
  assert.equal(els.badge.textContent, 'Ready');
});

test('a gap in the pushes fetches the missing events', async () => {
  const { open, type, answer, push, entries } = setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'hello' }));
  push(ev(4, 'assistant', { text: 'answer' }));
  const req = await answer('panel.history', {
    result: {
      conversation_id: 'c1',
      events: [
        ev(2, 'tool_call', { tool: 'observe', mode: 'page' }),
        ev(3, 'tool_result', { tool: 'observe', mode: 'page', ok: false }),
      ],
      lost: false,
    },
  });
  assert.deepEqual(req.params, { conversation_id: 'c1', after_seq: 1 });
  assert.deepEqual(
    entries().map((e) => e.kind),
    ['user', 'tool_call', 'tool_result', 'assistant'],
  );
});

test('reconnect: history after the cursor; a lost conversation says so', async () => {
  const { els, ports, port, open, type, answer, push, timers, stored } =
    setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'hello' }));
  push(ev(2, 'assistant', { text: 'hi' }));
  // The worker restarts; the panel reconnects and greets a ready link.
  port().drop();
  timers.advance(500);
  assert.equal(ports.length, 2);
  port().deliver({ method: 'link.state', params: { ...READY, epoch: 2 } });
  await answer('approvals.list', { result: { pending: [] } });
  await answer('panel.status', { result: STATUS });
  await answer('panel.providers', { result: PROVIDERS });
  const req = await answer('panel.history', {
    result: { conversation_id: 'c1', events: [ev(3, 'done')], lost: false },
  });
  assert.deepEqual(req.params, { conversation_id: 'c1', after_seq: 2 });
  assert.equal(els.conversation.children.length, 2);
  assert.equal(els.lost.hidden, true);
  // Then the daemon restarts: the conversation is gone.
  port().deliver({ method: 'link.state', params: { ...READY, epoch: 3 } });
  await answer('panel.history', {
    result: { conversation_id: 'c1', events: [], lost: true },
  });
  assert.equal(els.lost.hidden, false);
  assert.equal(
    els.lost.textContent,
    'This conversation was lost (the daemon restarted). A new one starts ' +
      'with your next message.',
  );
  assert.equal(els.conversation.children.length, 0);
  assert.deepEqual(stored.at(-1), { conversation_id: '' });
  assert.equal(els.send.disabled, false);
});

test('a reopened panel restores its conversation from storage', async () => {
  const { port, open, answer, entries } = setup({
    saved: { conversation_id: 'c1' },
  });
  await open();
  const req = await answer('panel.history', {
    result: {
      conversation_id: 'c1',
      events: [
        ev(1, 'user', { text: 'hello' }),
        ev(2, 'assistant', { text: 'hi' }),
      ],
      lost: false,
    },
  });
  assert.deepEqual(req.params, { conversation_id: 'c1', after_seq: 0 });
  assert.deepEqual(
    entries().map((e) => e.kind),
    ['user', 'assistant'],
  );
  assert.equal(port().requests('panel.history').length, 1);
});

test('Export asks the daemon and offers the JSON as a download', async () => {
  const { els, open, type, answer, downloads, port } = setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  els.exportBtn.click();
  assert.equal(els.exportBtn.disabled, true);
  assert.equal(els.exportText.textContent, 'Exporting…');
  const exported = { conversation_id: 'c1', timeline: [], replay: { v: 1 } };
  const req = await answer('panel.export', { result: exported });
  assert.deepEqual(req.params, { conversation_id: 'c1' });
  assert.equal(downloads.length, 1);
  assert.match(
    downloads[0].name,
    /^gasoline-export-2030-01-01T00-00-00\.json$/,
  );
  assert.deepEqual(JSON.parse(downloads[0].text), exported);
  assert.equal(els.exportLink.hidden, false);
  assert.equal(
    els.exportLink.getAttribute('href'),
    'blob:chrome-extension://x/1234',
  );
  assert.equal(els.exportLink.getAttribute('download'), downloads[0].name);
  assert.match(els.exportText.textContent, /^Redacted export ready/);
  // A failure says so.
  els.exportBtn.click();
  await answer('panel.export', {
    error: { code: 'internal', message: 'redaction failed: blocked' },
  });
  assert.equal(
    els.exportText.textContent,
    'Export failed: redaction failed: blocked',
  );
  assert.equal(els.exportLink.hidden, true);
  assert.equal(port().requests('panel.export').length, 2);
});

test('New starts over; an approval event in the chat points at the prompt', async () => {
  const { els, open, type, answer, push, port } = setup();
  await open();
  await type('click pay');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'click pay' }));
  push(ev(2, 'approval', { text: 'interact.click on https://shop.example' }));
  port().deliver({
    method: 'approval.event',
    params: { type: 'requested', time: AT, request: click() },
  });
  assert.equal(els.badge.textContent, 'Needs approval');
  const note = els.conversation.children.at(-1);
  assert.equal(
    note.querySelector('.label').textContent,
    'Waiting for your approval',
  );
  els.newChat.click();
  assert.equal(els.conversation.children.length, 0);
  assert.equal(els.status.children.at(-3).textContent, 'new');
});

test('conversation_lost from panel.chat: says so and resends in a new one', async () => {
  const { els, port, open, type, answer, push } = setup();
  await open();
  await type('first');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'first' }));
  push(ev(2, 'done'));
  await type('second');
  await answer('panel.chat', {
    error: {
      code: 'conversation_lost',
      message: 'conversation c1 is gone (the daemon restarted)',
    },
  });
  const chats = port().requests('panel.chat');
  assert.equal(chats.length, 3);
  assert.deepEqual(chats.at(-1).params, {
    message: 'second',
    provider: 'local',
    tab_id: 7,
  });
  assert.equal(els.lost.hidden, false, 'the loss is said');
  assert.deepEqual(
    els.conversation.children.map(
      (li) => li.querySelector('.text').textContent,
    ),
    ['second'],
  );
  await answer('panel.chat', {
    result: { conversation_id: 'c2', turn_id: 't1' },
  });
  push(ev(1, 'user', { conversation_id: 'c2', text: 'second' }));
  assert.equal(els.conversation.children.length, 1);
  assert.equal(els.status.children.at(-3).textContent, 'c2');
});

test('another failure of a known conversation stays on the message', async () => {
  const { els, port, open, type, answer, push } = setup();
  await open();
  await type('first');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  push(ev(1, 'user', { text: 'first' }));
  push(ev(2, 'done'));
  await type('second');
  await answer('panel.chat', {
    error: { code: 'busy', message: 'a turn is still running' },
  });
  assert.equal(port().requests('panel.chat').length, 2);
  assert.equal(
    els.conversation.children.at(-1).querySelector('.error').textContent,
    'Not sent: a turn is still running',
  );
  assert.equal(els.lost.hidden, true);
});

test('redaction: string policy versions, counters, a broken policy degrades', async () => {
  const { els, open, answer, controller, type, push } = setup();
  await open();
  await type('hello');
  await answer('panel.chat', {
    result: { conversation_id: 'c1', turn_id: 't1' },
  });
  const red = (n) => ({
    policy_version: 'gasoline-redact/1',
    redacted_count: n,
    blocked_count: 0,
  });
  push(ev(1, 'user', { text: 'hello', redaction: red(0) }));
  assert.equal(
    els.redaction.textContent,
    'Redaction gasoline-redact/1 · 0 redacted · 0 blocked',
  );
  push(
    ev(2, 'assistant', { text: 'Bearer [REDACTED:bearer]', redaction: red(3) }),
  );
  assert.equal(
    els.redaction.textContent,
    'Redaction gasoline-redact/1 · 3 redacted · 0 blocked',
  );
  controller.model.setStatus({
    ...STATUS,
    redaction: {
      policy_version: 'gasoline-redact/1',
      redacted_count: 9,
      blocked_count: 2,
    },
  });
  controller.render();
  const rows = Object.fromEntries(
    els.status.children
      .map((c, i, all) =>
        i % 2 ? null : [c.textContent, all[i + 1].textContent],
      )
      .filter(Boolean),
  );
  assert.equal(rows['Redaction policy'], 'gasoline-redact/1');
  assert.equal(rows['Values redacted'], '9');
  assert.equal(rows['Outputs blocked'], '2');
  controller.model.setStatus({
    ...STATUS,
    redaction: { error: 'redaction.json: bad regex' },
  });
  controller.render();
  assert.equal(els.badge.textContent, 'Degraded');
  assert.match(els.detail.textContent, /redaction policy is broken.*bad regex/);
});
