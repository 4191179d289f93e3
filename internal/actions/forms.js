// Gasoline's in-page helpers for fields, reads and waits; installed after
// page.js in the same isolated world.
(() => {
  const G = globalThis.__gasolineActions;
  if (!G || G.value) return;
  const { norm, fail, describe, visible } = G;

  // Code editors keep their text outside any value: CodeMirror 5, Monaco
  // and Ace type through a hidden textarea they empty at once and draw the
  // text in lines of their own (Monaco and Ace place the lines by style,
  // not document order). [root, input, line] selectors; CodeMirror 6 and
  // ProseMirror are contenteditable and read as such.
  const EDITORS = [
    ['.CodeMirror', 'textarea', '.CodeMirror-code pre.CodeMirror-line'],
    ['.monaco-editor', 'textarea.inputarea, textarea', '.view-lines .view-line'],
    ['.ace_editor', 'textarea.ace_text-input, textarea', '.ace_text-layer .ace_line'],
  ];

  function editorOf(el) {
    for (const [root, input, line] of EDITORS) {
      const r = el.closest?.(root);
      if (r) return { root: r, input: r.querySelector(input), line };
    }
    return null;
  }

  // editorText is the text an editor shows (its rendered lines: a long
  // document's lines far from the caret may not be drawn), or null when
  // el is not part of one.
  function editorText(el) {
    const ed = editorOf(el);
    if (!ed) return null;
    const top = (l) => (l.style.top !== '' ? parseFloat(l.style.top) : l.getBoundingClientRect().top);
    const lines = [...ed.root.querySelectorAll(ed.line)].sort((a, b) => top(a) - top(b));
    return lines.map((l) => l.textContent.replace(/\u200b/g, '').replace(/\u00a0/g, ' ')).join('\n');
  }

  function value(el) {
    const ed = editorText(el);
    if (ed !== null) return ed;
    if (el.localName === 'select') return [...el.selectedOptions].map((o) => o.value).join(', ');
    if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? el.value || 'on' : '';
    if ('value' in el && el.localName !== 'button' && el.localName !== 'li') return String(el.value);
    if (el.isContentEditable) return el.innerText;
    const ac = el.getAttribute('aria-valuenow') ?? el.getAttribute('aria-valuetext');
    return ac ?? null;
  }

  // focusForTyping focuses el, puts the caret at the end (or selects all
  // when clearing) and returns the value before typing. o is {clear,
  // mask}: mask the sensitive selectors (internal/sensitive).
  function focusForTyping(el, o) {
    const clear = !!o?.clear;
    if (o?.mask) G.setMask(o.mask);
    const ed = editorOf(el);
    if (ed?.input) el = ed.input; // the editor's own input takes the text, wherever in it the target is
    if (!G.editable(el)) fail('not_editable', `${describe(el)} does not take typed text; click it, or target its input`);
    if (el.disabled) fail('disabled', `${describe(el)} is disabled`);
    el.focus({ preventScroll: false });
    const doc = el.ownerDocument;
    const active = doc.activeElement?.shadowRoot?.activeElement || doc.activeElement;
    if (active !== el && !G.contains(el, active)) fail('not_focusable', `${describe(el)} did not take focus (the page moved it to ${describe(active)})`);
    if (el.isContentEditable) {
      const range = doc.createRange();
      range.selectNodeContents(el);
      if (!clear) range.collapse(false);
      const sel = doc.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
    } else if (clear) {
      el.select?.();
    } else if (!ed) {
      try {
        const n = el.value.length;
        el.setSelectionRange(n, n);
      } catch {} // email and number inputs have no selection API
    }
    return { before: value(el), multiline: el.localName === 'textarea' || el.isContentEditable, desc: describe(el), secret: el.type === 'password' || G.isSecret(el), editor: !!ed || el.isContentEditable };
  }

  // selectOption chooses an option of a native select by value, then by
  // label, and fires input and change like a user choice.
  function selectOption(el, want) {
    if (el.localName !== 'select') return null;
    if (el.disabled) fail('disabled', `${describe(el)} is disabled`);
    const opts = [...el.options];
    const w = norm(want).toLowerCase();
    const o = opts.find((o) => o.value === want) || opts.find((o) => norm(o.text) === norm(want)) ||
      opts.find((o) => norm(o.text).toLowerCase() === w) || opts.find((o) => o.label && norm(o.label).toLowerCase() === w);
    if (!o) {
      const list = opts.slice(0, 10).map((o) => JSON.stringify(norm(o.text))).join(', ');
      fail('no_option', `${describe(el)} has no option ${JSON.stringify(want)} (by value or label); options: ${list}${opts.length > 10 ? ', …' : ''}`);
    }
    if (o.disabled) fail('disabled', `option ${JSON.stringify(norm(o.text))} of ${describe(el)} is disabled`);
    el.focus();
    if (!o.selected || el.value !== o.value) {
      o.selected = true;
      el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }
    return { value: o.value, label: norm(o.text), selected: o.selected };
  }

  // option finds a visible element of a custom listbox by its text.
  function option(want) {
    const w = norm(want).toLowerCase();
    const els = G.all(document).filter((el) => ['option', 'menuitem', 'menuitemradio', 'treeitem'].includes(G.roleOf(el)) && visible(el));
    const el = els.find((e) => norm(G.nameOf(e)).toLowerCase() === w) || els.find((e) => norm(G.nameOf(e)).toLowerCase().includes(w));
    if (!el) fail('no_option', `no visible option ${JSON.stringify(want)} appeared after opening the list`);
    return el;
  }

  // read reads an element's text (what a person sees: dropped counts the
  // unseen text runs left out), value or attribute.
  function read(el, what, name, max, mask) {
    G.setMask(mask);
    let v;
    let dropped = 0;
    if (what === 'text') ({ text: v, dropped } = globalThis.__gasolineVisible.text(el, 0, G.secretSelf));
    else if (what === 'value') v = value(el);
    else v = el.getAttribute(name);
    let truncated = false;
    if (typeof v === 'string' && v.length > max) {
      v = v.slice(0, max);
      truncated = true;
    }
    return { value: v, truncated, desc: describe(el), type: el.type || '', dropped, secret: G.isSecret(el) };
  }

  // waitFor resolves when cond() holds: checked now, on every DOM mutation
  // and on a light timer (CSS-only changes are not mutations). It resolves
  // {ok:false} at the timeout.
  function waitFor(cond, timeout) {
    return new Promise((resolve) => {
      let done = false;
      let mo = null;
      let timer = 0;
      let poll = 0;
      const finish = (ok, detail) => {
        if (done) return;
        done = true;
        mo?.disconnect();
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ ok, detail: detail ?? null });
      };
      const check = () => {
        try {
          const d = cond();
          if (d !== false && d !== null && d !== undefined) finish(true, d === true ? null : d);
        } catch (e) {
          finish(false, 'error: ' + (e.message || e));
        }
      };
      check();
      if (done) return;
      mo = new MutationObserver(check);
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      poll = setInterval(check, 100);
      timer = setTimeout(() => finish(false), timeout);
    });
  }

  function waitSelector(q, state, timeout) {
    return waitFor(() => {
      const { vis, hidden } = matchesOf(q);
      switch (state) {
        case 'attached':
          return vis.length + hidden.length > 0 && describe(vis[0] || hidden[0]);
        case 'detached':
          return vis.length + hidden.length === 0;
        case 'hidden':
          return vis.length === 0;
        default:
          return vis.length > 0 && describe(vis[0]);
      }
    }, timeout);
  }

  function matchesOf(q) {
    try {
      const el = G.find({ ...q, nth: -1 }, false);
      return visible(el) ? { vis: [el], hidden: [] } : { vis: [], hidden: [el] };
    } catch (e) {
      if (typeof e === 'string' && e.includes('"not_found"')) return { vis: [], hidden: [] };
      throw e;
    }
  }

  function waitText(text, timeout) {
    const w = norm(text).toLowerCase();
    return waitFor(() => norm(document.body?.innerText || '').toLowerCase().includes(w), timeout);
  }

  // stable resolves when the DOM saw no mutation for quiet ms.
  function stable(quiet, timeout) {
    return new Promise((resolve) => {
      const start = performance.now();
      let last = start;
      let mutations = 0;
      const mo = new MutationObserver((records) => {
        mutations += records.length;
        last = performance.now();
      });
      mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
      const tick = () => {
        const now = performance.now();
        if (now - last >= quiet || now - start >= timeout) {
          mo.disconnect();
          resolve({ ok: now - last >= quiet, mutations, ms: Math.round(now - start) });
          return;
        }
        setTimeout(tick, Math.min(quiet - (now - last), timeout - (now - start)) + 1);
      };
      setTimeout(tick, quiet);
    });
  }

  function info() {
    return {
      url: location.href, title: document.title, ready: document.readyState,
      viewport: { width: innerWidth, height: innerHeight }, scroll: { x: scrollX, y: scrollY },
      size: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight },
      frames: document.querySelectorAll('iframe, frame').length, forms: document.forms.length,
    };
  }

  Object.assign(G, { value, focusForTyping, selectOption, option, read, waitSelector, waitText, stable, info });
})();
