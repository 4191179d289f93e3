// Copies view models (view.js) into the page. Text always goes in with
// textContent; prompts are keyed by request id and updated in place, so a
// countdown tick never resets the minutes the user is typing.

import { renderChat } from './chatdom.js';
import { el } from './el.js';
import { sessionRows } from './chatview.js';
import {
  DEFAULT_SITE_MINUTES,
  MAX_SITE_MINUTES,
  badgeView,
  emptyText,
  grantsView,
  promptsView,
  statusView,
  timelineView,
} from './view.js';

/** The page's fixed elements, by id. */
export function bind(doc) {
  const get = (id) => doc.getElementById(id);
  return {
    doc,
    badge: get('badge'),
    detail: get('detail'),
    fix: get('fix'),
    fixText: get('fix-text'),
    fixCmd: get('fix-cmd'),
    start: get('start'),
    prompts: get('prompts'),
    noPrompts: get('no-prompts'),
    grants: get('grants'),
    noGrants: get('no-grants'),
    grantError: get('grant-error'),
    status: get('status'),
    timeline: get('timeline'),
    noTimeline: get('no-timeline'),
    conversation: get('conversation'),
    noConversation: get('no-conversation'),
    lost: get('conversation-lost'),
    redaction: get('redaction'),
    provider: get('provider'),
    providerProblem: get('provider-problem'),
    newChat: get('chat-new'),
    exportBtn: get('export'),
    exportStatus: get('export-status'),
    exportText: get('export-text'),
    exportLink: get('export-link'),
    composer: get('composer'),
    input: get('chat-input'),
    send: get('chat-send'),
    hint: get('composer-hint'),
  };
}

export function renderBadge(els, vm) {
  els.badge.textContent = vm.label;
  els.badge.dataset.state = vm.state;
  els.doc.body.dataset.state = vm.state;
  els.detail.textContent = vm.detail;
  els.fixText.textContent = vm.fix;
  els.fixCmd.textContent = vm.command;
  els.fixCmd.hidden = !vm.command;
  els.fix.hidden = !vm.fix;
  if (els.start) {
    els.start.hidden = !vm.start;
    els.start.disabled = vm.starting;
    els.start.textContent = vm.starting ? 'Starting…' : 'Start Gasoline';
  }
}

/** Replaces the rows of a <dl> of [label, value] pairs. */
export function renderStatus(els, rows) {
  const doc = els.doc;
  els.status.replaceChildren(
    ...rows.flatMap(([label, value]) => [
      el(doc, 'dt', '', label),
      el(doc, 'dd', '', value),
    ]),
  );
}

export function renderTimeline(els, rows) {
  const doc = els.doc;
  els.timeline.replaceChildren(
    ...rows.map((row) => {
      const li = el(doc, 'li', `event ${row.type}`);
      const time = el(doc, 'time', 'when', row.time);
      li.append(time, el(doc, 'span', 'what', row.label));
      li.append(el(doc, 'span', 'text', row.text));
      return li;
    }),
  );
  els.noTimeline.hidden = rows.length > 0;
}

/** Appends a labelled value to dl; returns both elements. */
function fact(doc, dl, label, key) {
  const dt = el(doc, 'dt', '', label);
  const dd = el(doc, 'dd', key);
  dd.dataset.field = key;
  dl.append(dt, dd);
  return [dt, dd];
}

/** A new prompt's elements; decide(id, decision, minutesInput) acts. */
function buildPrompt(doc, vm, decide) {
  const li = el(doc, 'li', 'prompt');
  li.dataset.requestId = vm.id;
  const asks = el(doc, 'p', 'asks', vm.asks ?? 'Your agent asks to:');
  const describe = el(doc, 'p', 'describe');
  describe.dataset.field = 'describe';
  const head = el(doc, 'h3', 'action');
  head.dataset.field = 'action';
  head.id = `prompt-${vm.id}-action`; // names the buttons' context
  const target = el(doc, 'p', 'target');
  target.dataset.field = 'target';
  const steps = el(doc, 'ol', 'steps');
  steps.setAttribute('aria-label', 'Every step it will run');
  const notes = el(doc, 'ul', 'notes');
  notes.setAttribute('aria-label', 'What to weigh');
  // The whole script, address or policy: never cut, scrollable, reachable
  // with the keyboard.
  const detail = el(doc, 'div', 'detail');
  const detailLabel = el(doc, 'p', 'detail-label');
  detailLabel.dataset.field = 'detailLabel';
  detailLabel.id = `prompt-${vm.id}-detail`;
  const detailText = el(doc, 'pre', 'detail-text');
  detailText.dataset.field = 'detail';
  detailText.tabIndex = 0;
  detailText.setAttribute('aria-labelledby', detailLabel.id);
  detail.append(detailLabel, detailText);
  const warning = el(doc, 'p', 'warning');
  warning.dataset.field = 'warning';
  warning.setAttribute('role', 'note');
  const dl = el(doc, 'dl', 'facts');
  fact(doc, dl, 'Kind', 'kind');
  fact(doc, dl, 'Tab', 'tab');
  const pageRow = fact(doc, dl, 'Tab shows', 'page');
  fact(doc, dl, 'Origin', 'origin');
  fact(doc, dl, 'Asked by', 'who');
  const reasonRow = fact(doc, dl, 'Why', 'reason');
  fact(doc, dl, 'Time left', 'timeLeft');

  const actions = el(doc, 'div', 'actions');
  const once = el(doc, 'button', 'approve-once', 'Approve once');
  once.type = 'button';
  once.dataset.decision = 'once';
  const deny = el(doc, 'button', 'deny', 'Deny');
  deny.type = 'button';
  deny.dataset.decision = 'deny';
  const site = el(doc, 'div', 'site');
  const siteBtn = el(doc, 'button', 'approve-site', 'Approve for this site');
  siteBtn.type = 'button';
  siteBtn.dataset.decision = 'site';
  const minutes = el(doc, 'input', 'minutes');
  minutes.type = 'number';
  minutes.min = '1';
  minutes.max = String(MAX_SITE_MINUTES);
  minutes.value = String(DEFAULT_SITE_MINUTES);
  minutes.setAttribute('aria-label', 'Minutes to approve this site for');
  site.append(
    siteBtn,
    el(doc, 'span', '', ' for '),
    minutes,
    el(doc, 'span', '', ' minutes'),
  );
  const scopeNote = el(doc, 'p', 'site-note');
  scopeNote.dataset.field = 'siteNote';
  actions.append(once, deny, site);

  const busy = el(doc, 'p', 'busy');
  busy.dataset.field = 'busyText';
  busy.setAttribute('role', 'status');
  const error = el(doc, 'p', 'error');
  error.dataset.field = 'error';
  error.setAttribute('role', 'alert');

  for (const b of [once, siteBtn, deny]) {
    b.setAttribute('aria-describedby', head.id);
    b.addEventListener('click', () =>
      decide(vm.id, b.dataset.decision, minutes),
    );
  }
  li.append(
    asks,
    describe,
    head,
    target,
    notes,
    steps,
    detail,
    warning,
    dl,
    actions,
    scopeNote,
    busy,
    error,
  );
  return {
    doc,
    li,
    once,
    deny,
    site,
    siteBtn,
    minutes,
    reasonRow,
    pageRow,
    scopeNote,
    steps,
    notes,
    detail,
    shownSteps: '',
    shownNotes: '',
  };
}

function updatePrompt(p, vm) {
  for (const node of p.li.querySelectorAll('[data-field]')) {
    const key = node.dataset.field;
    if (key === 'siteNote') continue;
    node.textContent = vm[key] ?? '';
  }
  for (const e of p.reasonRow) e.hidden = !vm.reason;
  p.li.querySelector('.target').hidden = !vm.target;
  p.li.querySelector('.warning').hidden = !vm.warning;
  const steps = JSON.stringify(vm.steps);
  if (steps !== p.shownSteps) {
    p.shownSteps = steps;
    p.steps.replaceChildren(...vm.steps.map((s) => el(p.doc, 'li', 'step', s)));
  }
  p.steps.hidden = vm.steps.length === 0;
  const notes = JSON.stringify(vm.notes);
  if (notes !== p.shownNotes) {
    p.shownNotes = notes;
    p.notes.replaceChildren(...vm.notes.map((s) => el(p.doc, 'li', 'note', s)));
  }
  p.notes.hidden = vm.notes.length === 0;
  p.detail.hidden = !vm.detail;
  for (const e of p.pageRow) e.hidden = !vm.page;
  p.li.classList.toggle('sensitive', vm.sensitive);
  const note = p.scopeNote;
  note.textContent = vm.siteGrantable
    ? `“Approve for this site” lets this agent session do ` +
      `${vm.sensitive ? 'sensitive' : 'mutating'} actions on ${vm.origin} ` +
      'without asking, until the time runs out.'
    : '';
  note.hidden = !vm.siteGrantable;
  p.site.hidden = !vm.siteGrantable;
  p.siteBtn.setAttribute(
    'aria-label',
    `Approve for this site (${vm.origin}) for ${p.minutes.value || '?'} ` +
      'minutes',
  );
  const off = Boolean(vm.busy) || vm.expired;
  for (const b of [p.once, p.siteBtn, p.deny, p.minutes]) b.disabled = off;
  p.li.classList.toggle('expired', vm.expired);
  p.li.querySelector('.busy').hidden = !vm.busyText;
  p.li.querySelector('.error').hidden = !vm.error;
}

/**
 * Shows a keyed list in a container: items (view models with an id) not
 * yet shown are built, gone ones removed, the rest updated in place and
 * kept in order, so a tick never resets what the user is typing or
 * focusing.
 * @param {Map<string, {li: object}>} live id → built elements, kept by the caller
 */
function renderKeyed(container, items, live, build, update) {
  const seen = new Set();
  let before = container.firstChild;
  for (const vm of items) {
    seen.add(vm.id);
    let built = live.get(vm.id);
    if (!built) {
      built = build(vm);
      live.set(vm.id, built);
    }
    update(built, vm);
    if (built.li !== before) container.insertBefore(built.li, before);
    before = built.li.nextSibling;
  }
  for (const [id, built] of live) {
    if (!seen.has(id)) {
      built.li.remove();
      live.delete(id);
    }
  }
}

/**
 * Shows the prompts, keyed by request id.
 * @param {Map<string, object>} live request id → built prompt, kept by the caller
 */
export function renderPrompts(els, prompts, live, decide) {
  renderKeyed(
    els.prompts,
    prompts,
    live,
    (vm) => buildPrompt(els.doc, vm, decide),
    updatePrompt,
  );
  els.noPrompts.hidden = prompts.length > 0;
}

/**
 * Shows the live site grants, keyed by grant id (a tick updates the time
 * left without rebuilding the Revoke buttons).
 * @param {Map<string, object>} live grant id → its elements
 */
export function renderGrants(els, grants, live, revoke, error) {
  if (!els.grants) return;
  renderKeyed(
    els.grants,
    grants,
    live,
    (vm) => buildGrant(els.doc, vm, revoke),
    (g, vm) => {
      g.text.textContent = `${vm.origin} — ${vm.kind}, ${vm.who}`;
      g.left.textContent = `${vm.timeLeft} left`;
      g.button.disabled = vm.busy;
      g.button.textContent = vm.busy ? 'Revoking…' : 'Revoke';
    },
  );
  els.noGrants.hidden = grants.length > 0;
  els.grantError.textContent = error;
  els.grantError.hidden = !error;
}

function buildGrant(doc, vm, revoke) {
  const li = el(doc, 'li', 'grant');
  li.dataset.grantId = vm.id;
  const text = el(doc, 'span', 'grant-text');
  const left = el(doc, 'span', 'grant-left');
  const button = el(doc, 'button', 'revoke', 'Revoke');
  button.type = 'button';
  button.setAttribute('aria-label', `Revoke the grant for ${vm.origin}`);
  button.addEventListener('click', () => revoke(vm.id));
  li.append(text, left, button);
  return { li, text, left, button };
}

/**
 * The whole panel's render function for PanelController.
 * @param {ReturnType<typeof bind>} els
 * @param {(id: string, decision: string, minutesText: string) => void} decide
 * @param {(grantId: string) => void} [revoke]
 */
export function renderer(els, decide, revoke = () => {}) {
  const live = new Map(); // request id → the prompt's elements
  const grants = new Map(); // grant id → its elements
  const entries = new Map(); // conversation entry key → its element
  const act = (id, decision, minutes) => decide(id, decision, minutes.value);
  return (model, now) => {
    renderBadge(els, badgeView(model.phase(now)));
    renderPrompts(els, promptsView(model, now), live, act);
    renderGrants(els, grantsView(model, now), grants, revoke, model.grantError);
    els.noPrompts.textContent = emptyText(model);
    renderStatus(els, [...statusView(model, now), ...sessionRows(model)]);
    renderTimeline(els, timelineView(model));
    if (els.conversation && renderChat(els, model, entries)) {
      els.onAdded?.();
    }
  };
}
