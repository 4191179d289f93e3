// A tiny DOM for the panel's rendering tests: just what dom.js uses
// (elements, text, dataset, a few selectors, click listeners), and a
// worker-side fake of the panel port.

import { FakeEvent } from './fakes.mjs';

class FakeClassList {
  constructor(el) {
    this.el = el;
  }
  contains(name) {
    return this.el.className.split(/\s+/).includes(name);
  }
  toggle(name, on) {
    const set = new Set(this.el.className.split(/\s+/).filter(Boolean));
    if (on ?? !set.has(name)) set.add(name);
    else set.delete(name);
    this.el.className = [...set].join(' ');
  }
}

export class FakeElement {
  constructor(tag) {
    this.tagName = tag.toUpperCase();
    this.className = '';
    this.children = [];
    this.parent = null;
    this.dataset = {};
    this.attrs = {};
    this.hidden = false;
    this.disabled = false;
    this.value = '';
    this.listeners = {};
    this.ownText = '';
    this.classList = new FakeClassList(this);
  }
  get textContent() {
    return this.ownText + this.children.map((c) => c.textContent).join('');
  }
  set textContent(text) {
    for (const c of this.children) c.parent = null;
    this.children = [];
    this.ownText = String(text);
  }
  get firstChild() {
    return this.children[0] ?? null;
  }
  get nextSibling() {
    const sibs = this.parent?.children ?? [];
    return sibs[sibs.indexOf(this) + 1] ?? null;
  }
  append(...nodes) {
    for (const n of nodes) this.insertBefore(n, null);
  }
  insertBefore(node, ref) {
    if (ref && ref.parent !== this) {
      // As the DOM's NotFoundError.
      throw new Error('fake DOM: insertBefore: ref is not a child');
    }
    if (ref === node) return node;
    node.remove();
    const i = ref ? this.children.indexOf(ref) : -1;
    if (i < 0) this.children.push(node);
    else this.children.splice(i, 0, node);
    node.parent = this;
    return node;
  }
  replaceChildren(...nodes) {
    this.textContent = '';
    this.append(...nodes);
  }
  remove() {
    if (!this.parent) return;
    const sibs = this.parent.children;
    sibs.splice(sibs.indexOf(this), 1);
    this.parent = null;
  }
  setAttribute(name, value) {
    this.attrs[name] = String(value);
  }
  getAttribute(name) {
    return this.attrs[name] ?? null;
  }
  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }
  click() {
    if (this.disabled) return;
    for (const fn of this.listeners.click ?? []) fn({ target: this });
  }
  /** Fires an event of type at the element's listeners. */
  emit(type, props = {}) {
    const ev = { target: this, defaultPrevented: false, ...props };
    ev.preventDefault = () => (ev.defaultPrevented = true);
    for (const fn of this.listeners[type] ?? []) fn(ev);
    return ev;
  }
  /** Every descendant, depth first. */
  *walk() {
    for (const c of this.children) {
      yield c;
      yield* c.walk();
    }
  }
  matches(selector) {
    let m = /^\.([\w-]+)$/.exec(selector);
    if (m) return this.classList.contains(m[1]);
    m = /^\[data-([\w-]+)(?:="([^"]*)")?\]$/.exec(selector);
    if (m) {
      const key = m[1].replace(/-(\w)/g, (_, c) => c.toUpperCase());
      return (
        key in this.dataset && (m[2] == null || this.dataset[key] === m[2])
      );
    }
    m = /^([a-z0-9]+)$/.exec(selector);
    if (m) return this.tagName === m[1].toUpperCase();
    throw new Error(`fake DOM: unsupported selector ${selector}`);
  }
  querySelectorAll(selector) {
    return [...this.walk()].filter((e) => e.matches(selector));
  }
  querySelector(selector) {
    return this.querySelectorAll(selector)[0] ?? null;
  }
}

/** A document with the ids sidepanel.html has. */
export function fakeDocument() {
  const byId = new Map();
  const doc = {
    body: new FakeElement('body'),
    createElement: (tag) => new FakeElement(tag),
    getElementById: (id) => byId.get(id) ?? null,
  };
  const ids = [
    ['badge', 'span'],
    ['detail', 'p'],
    ['fix', 'div'],
    ['fix-text', 'p'],
    ['fix-cmd', 'code'],
    ['no-prompts', 'p'],
    ['prompts', 'ul'],
    ['no-grants', 'p'],
    ['grants', 'ul'],
    ['grant-error', 'p'],
    ['status', 'dl'],
    ['no-timeline', 'p'],
    ['timeline', 'ol'],
    ['provider', 'select'],
    ['provider-problem', 'p'],
    ['chat-new', 'button'],
    ['export', 'button'],
    ['redaction', 'p'],
    ['conversation-lost', 'p'],
    ['no-conversation', 'p'],
    ['conversation', 'ol'],
    ['export-status', 'p'],
    ['export-text', 'span'],
    ['export-link', 'a'],
    ['composer', 'form'],
    ['chat-input', 'textarea'],
    ['chat-send', 'button'],
    ['composer-hint', 'p'],
  ];
  for (const [id, tag] of ids) {
    const e = new FakeElement(tag);
    byId.set(id, e);
    doc.body.append(e);
  }
  byId.get('fix').append(byId.get('fix-text'), byId.get('fix-cmd'));
  return doc;
}

/**
 * The panel's end of a runtime port; the test plays the worker with
 * reply/push/drop. Messages round-trip through JSON like Chrome's.
 */
export class FakePanelPort {
  constructor(name = 'panel', sender) {
    this.name = name;
    this.sender = sender;
    this.onMessage = new FakeEvent();
    this.onDisconnect = new FakeEvent();
    this.sent = [];
    this.disconnected = false;
  }
  postMessage(msg) {
    if (this.disconnected) throw new Error('disconnected port');
    this.sent.push(JSON.parse(JSON.stringify(msg)));
  }
  disconnect() {
    this.disconnected = true;
  }
  deliver(msg) {
    this.onMessage.emit(JSON.parse(JSON.stringify(msg)), this);
  }
  drop() {
    this.disconnected = true;
    this.onDisconnect.emit(this);
  }
  /** The requests sent for method, in order. */
  requests(method) {
    return this.sent.filter((m) => m.method === method && m.id);
  }
}

/** A pending approval request as approvals.list lists it. */
export const clickRequest = (id = 'req_1', extra = {}) => ({
  request_id: id,
  session: 's_abc',
  action: 'interact.click',
  class: 'mutating',
  describe: 'Click on the page',
  scope: { tab_id: 7, origin: 'https://shop.example' },
  target: 'button "Pay now" on https://shop.example/checkout',
  created_at: '2030-01-01T00:00:00Z',
  expires_at: '2030-01-01T00:05:00Z',
  site_grantable: true,
  ...extra,
});
