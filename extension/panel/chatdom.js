// Copies the conversation card's view models (chatview.js) into the page,
// text always with textContent, and wires its controls to the controller.

import {
  composerView,
  conversationNotes,
  conversationView,
  exportView,
  providersView,
  redactionText,
} from './chatview.js';
import { el } from './el.js';

/** One conversation entry's element, built from its view model. */
function buildEntry(doc, vm) {
  const li = el(doc, 'li', `entry kind-${vm.kind}`);
  li.dataset.key = vm.key;
  li.dataset.kind = vm.kind;
  const head = el(doc, 'div', 'head');
  const time = el(doc, 'time', 'when', vm.time);
  if (vm.kind === 'user' || vm.kind === 'assistant') {
    head.append(el(doc, 'span', 'who', vm.who), time);
    li.append(head, el(doc, 'p', 'text', vm.text));
    if (vm.sending) li.append(el(doc, 'p', 'sending', 'Sending…'));
    if (vm.failed) {
      const err = el(doc, 'p', 'error', vm.failed);
      err.setAttribute('role', 'alert');
      li.append(err);
      li.classList.toggle('failed', true);
    }
    return li;
  }
  if (vm.kind === 'evidence') {
    li.classList.toggle(`evidence-${vm.evidence}`, true);
    head.append(el(doc, 'span', 'tag', vm.label), time);
    li.append(head, el(doc, 'p', 'title', vm.title));
    if (vm.detail) li.append(el(doc, 'p', 'detail', vm.detail));
    if (vm.url) li.append(el(doc, 'p', 'url', vm.url));
    return li;
  }
  head.append(el(doc, 'span', 'label', vm.label), time);
  li.append(head);
  if (vm.kind === 'tool_result') {
    li.classList.toggle('failed', !vm.ok);
    // Results are long and the evidence cards sum them up: folded.
    if (vm.text) {
      const more = el(doc, 'details', 'result');
      more.append(
        el(doc, 'summary', '', `Show the result (${vm.text.length} chars)`),
        el(doc, 'p', 'text', vm.text),
      );
      li.append(more);
    }
    return li;
  }
  if (vm.text) li.append(el(doc, 'p', 'text', vm.text));
  if (vm.kind === 'error') li.setAttribute('role', 'alert');
  return li;
}

/**
 * Shows the conversation, keyed by entry: an entry is rebuilt only when it
 * changed (a message being sent, then echoed), so the page does not churn
 * on every tick. Returns whether entries were added.
 * @param {Map<string, {li: object, sig: string}>} live
 */
export function renderConversation(els, entries, live) {
  const seen = new Set();
  let added = false;
  let before = els.conversation.firstChild;
  for (const vm of entries) {
    seen.add(vm.key);
    const sig = JSON.stringify(vm);
    let e = live.get(vm.key);
    if (!e) {
      e = { li: buildEntry(els.doc, vm), sig };
      live.set(vm.key, e);
      added = true;
    } else if (e.sig !== sig) {
      // Changed (sent, echoed, failed): the new element takes its place.
      const li = buildEntry(els.doc, vm);
      els.conversation.insertBefore(li, e.li);
      e.li.remove();
      if (before === e.li) before = li;
      e = { li, sig };
      live.set(vm.key, e);
    }
    if (e.li !== before) els.conversation.insertBefore(e.li, before);
    before = e.li.nextSibling;
  }
  for (const [key, e] of live) {
    if (!seen.has(key)) {
      e.li.remove();
      live.delete(key);
    }
  }
  return added;
}

/** The provider selector; options rebuilt only when the list changed. */
function renderProviders(els, vm) {
  const sel = els.provider;
  const sig = JSON.stringify(vm.options);
  if (sel.dataset.sig !== sig) {
    sel.replaceChildren(
      ...vm.options.map((o) => {
        const opt = el(els.doc, 'option', '', o.label);
        opt.value = o.value;
        return opt;
      }),
    );
    sel.dataset.sig = sig;
  }
  if (vm.selected && sel.value !== vm.selected) sel.value = vm.selected;
  sel.disabled = vm.options.length === 0;
  sel.hidden = vm.options.length === 0;
  els.providerProblem.textContent = vm.problem;
  els.providerProblem.hidden = !vm.problem;
}

function renderExport(els, vm) {
  els.exportBtn.disabled = vm.busy;
  els.exportStatus.hidden = !vm.text;
  els.exportStatus.classList.toggle('error', vm.error);
  els.exportText.textContent = vm.text;
  els.exportLink.hidden = !vm.url;
  if (vm.url) {
    els.exportLink.setAttribute('href', vm.url);
    els.exportLink.setAttribute('download', vm.name);
    els.exportLink.textContent = vm.name;
  }
}

function renderComposer(els, vm) {
  els.input.disabled = !vm.typing;
  els.send.disabled = !vm.enabled;
  els.send.textContent = vm.running ? 'Working…' : 'Send';
  els.hint.textContent = vm.hint;
  els.hint.hidden = !vm.hint;
}

/** The conversation card. */
export function renderChat(els, model, live) {
  const notes = conversationNotes(model);
  const added = renderConversation(els, conversationView(model), live);
  els.noConversation.textContent = notes.empty;
  els.noConversation.hidden = els.conversation.children.length > 0;
  els.lost.textContent = notes.lost;
  els.lost.hidden = !notes.lost;
  const red = redactionText(model);
  els.redaction.textContent = red;
  els.redaction.hidden = !red;
  renderProviders(els, providersView(model));
  renderExport(els, exportView(model));
  const off = model.chat === 'unavailable';
  const ready = model.port === 'open' && model.link?.state === 'ready';
  els.newChat.disabled = off;
  if (off || !ready) els.exportBtn.disabled = true;
  renderComposer(els, composerView(model, model.canSend()));
  return added;
}

/**
 * Wires the conversation's controls to the controller: Enter sends
 * (Shift+Enter is a new line), the selector picks the provider.
 * @param {ReturnType<typeof bind>} els
 * @param {import('./controller.js').PanelController} controller
 */
export function wireChat(els, controller) {
  const submit = () => {
    const text = els.input.value;
    if (!text.trim() || !controller.canSend()) return;
    els.input.value = '';
    controller.send(text);
  };
  els.composer.addEventListener('submit', (e) => {
    e.preventDefault?.();
    submit();
  });
  els.input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault?.();
      submit();
    }
  });
  els.provider.addEventListener('change', () =>
    controller.selectProvider(els.provider.value),
  );
  els.newChat.addEventListener('click', () => controller.newConversation());
  els.exportBtn.addEventListener('click', () =>
    controller.exportConversation(),
  );
}
