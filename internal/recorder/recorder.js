// Gasoline action recorder: installed through CDP in an isolated world of
// every frame of a captured tab (Page.addScriptToEvaluateOnNewDocument with
// a worldName, and at once in the current documents). The page's scripts
// cannot see this world, and the binding it reports through
// (Runtime.addBinding, exposed to this world only) is deleted from its
// global before any page script runs. Only trusted input is recorded
// (event.isTrusted; a form change also needs the page's transient user
// activation), so the page cannot forge actions. Values of sensitive
// elements (internal/sensitive), password and payment-card fields never
// leave the page: they are reported as masked.
(() => {
  const BINDING = '__GASOLINE_BINDING__';
  const send = globalThis[BINDING];
  if (typeof send !== 'function') return;
  try {
    delete globalThis[BINDING];
  } catch {
    // non-configurable: the binding stays, still only in this world
  }
  // The sensitive selectors (internal/sensitive: built in plus the
  // redaction policy's mask_selectors), base64 JSON put in at install.
  const MASK = JSON.parse(
    new TextDecoder().decode(
      Uint8Array.from(atob('__GASOLINE_MASK__'), (c) => c.charCodeAt(0)),
    ),
  );
  const maskTest = gasolineSecretTest(MASK);
  const sensitive = (el) => gasolineSecretIn(el, maskTest);
  const top = window === window.top;
  const MAX_VALUE = 4096;
  const MAX_NAME = 120;
  const post = (ev) => {
    try {
      if (!top) ev.frame = location.href;
      ev.at ??= Date.now();
      send(JSON.stringify(ev));
    } catch {
      // the debugger detached: nothing to report to
    }
  };

  // --- elements -----------------------------------------------------------

  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const clip = (s, n) => (s.length > n ? s.slice(0, n) + '…' : s);
  const quote = (v) =>
    '"' + String(v).replace(/["\\]/g, '\\$&').replace(/\n/g, '\\a ') + '"';
  const input = (el) => el instanceof HTMLInputElement;
  const buttonTypes = new Set(['button', 'submit', 'reset', 'image']);
  const textField = (el) =>
    (input(el) &&
      !buttonTypes.has(el.type) &&
      !['checkbox', 'radio', 'file', 'range', 'color'].includes(el.type)) ||
    el instanceof HTMLTextAreaElement ||
    (el instanceof HTMLElement && el.isContentEditable);

  const roleOf = (el) => {
    const explicit = norm(el.getAttribute('role')).split(' ')[0];
    if (explicit) return explicit;
    const tag = el.localName;
    if (tag === 'a' && el.hasAttribute('href')) return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select')
      return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'img') return 'img';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'option') return 'option';
    if (input(el)) {
      if (buttonTypes.has(el.type)) return 'button';
      const byType = { checkbox: 'checkbox', radio: 'radio', range: 'slider' };
      if (byType[el.type]) return byType[el.type];
      if (el.type === 'number') return 'spinbutton';
      if (el.type === 'search') return 'searchbox';
      return 'textbox';
    }
    if (el.isContentEditable) return 'textbox';
    return '';
  };

  const labelled = (el) => {
    const ids = norm(el.getAttribute('aria-labelledby'));
    if (!ids) return '';
    const root = el.getRootNode();
    return norm(
      ids
        .split(' ')
        .map((id) => root.getElementById?.(id)?.textContent || '')
        .join(' '),
    );
  };

  const nameOf = (el) => {
    let n = norm(el.getAttribute('aria-label')) || labelled(el);
    if (!n && el.labels && el.labels.length) n = norm(el.labels[0].textContent);
    if (!n && input(el) && buttonTypes.has(el.type))
      n = norm(el.value || el.alt);
    if (!n && (el.localName === 'img' || el.localName === 'area'))
      n = norm(el.alt);
    if (!n && !textField(el) && el.localName !== 'select')
      n = sensitive(el) ? '••••' : norm(el.textContent);
    if (!n)
      n = norm(el.getAttribute('placeholder') || el.getAttribute('title'));
    return n;
  };

  const describe = (el) => {
    const role = roleOf(el);
    const name = clip(nameOf(el), MAX_NAME);
    const what = role || el.localName;
    return name ? `${what} ${JSON.stringify(name)}` : what;
  };

  // A generated id (digits, hashes) changes between page loads.
  const stableId = (id) => id && !/\d{3,}|[0-9a-f]{8,}|^[\d-]/i.test(id);

  const unique = (el, sel) => {
    try {
      const all = el.getRootNode().querySelectorAll(sel);
      return all.length === 1 && all[0] === el;
    } catch {
      return false;
    }
  };

  // uniqueByName reports that no other element of the role has the name.
  const uniqueByName = (el, role, name) => {
    const tags = {
      button:
        'button,summary,input[type=button],input[type=submit],input[type=reset],[role=button]',
      link: 'a[href],[role=link]',
    };
    let n = 0;
    for (const e of document.querySelectorAll(tags[role])) {
      if (roleOf(e) === role && nameOf(e) === name && ++n > 1) return false;
    }
    return n === 1;
  };

  // cssPath walks up to the nearest ancestor with a stable unique id (or
  // the root), naming each step by tag and, where needed, nth-of-type.
  const cssPath = (el) => {
    const steps = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (
        e !== el &&
        e.id &&
        stableId(e.id) &&
        unique(e, '#' + CSS.escape(e.id))
      ) {
        steps.unshift('#' + CSS.escape(e.id));
        break;
      }
      let step = CSS.escape(e.localName);
      const same = e.parentElement
        ? [...e.parentElement.children].filter(
            (c) => c.localName === e.localName,
          )
        : [];
      if (same.length > 1) step += `:nth-of-type(${same.indexOf(e) + 1})`;
      steps.unshift(step);
      if (e.localName === 'body') break;
    }
    return steps.join(' > ');
  };

  // selectorFor returns a selector that matched only el when recorded:
  // test ids, a stable id, role and name for buttons and links, a form
  // control's name or aria-label, else a CSS path. An element in an open
  // shadow root is prefixed by its host's selector (Playwright's CSS
  // pierces shadow roots).
  const selectorFor = (el) => {
    const root = el.getRootNode();
    const prefix =
      root instanceof ShadowRoot ? selectorFor(root.host) + ' ' : '';
    for (const a of [
      'data-testid',
      'data-test-id',
      'data-test',
      'data-qa',
      'data-cy',
    ]) {
      const v = el.getAttribute(a);
      if (v && unique(el, `[${a}=${quote(v)}]`))
        return prefix + `[${a}=${quote(v)}]`;
    }
    if (stableId(el.id) && unique(el, '#' + CSS.escape(el.id))) {
      return prefix + '#' + CSS.escape(el.id);
    }
    const role = roleOf(el);
    if (!prefix && (role === 'button' || role === 'link')) {
      const name = nameOf(el);
      if (name && name.length <= 80 && uniqueByName(el, role, name)) {
        return `role=${role}[name=${quote(name)}s]`;
      }
    }
    for (const a of ['name', 'aria-label', 'placeholder']) {
      const v = el.getAttribute(a);
      const sel = `${CSS.escape(el.localName)}[${a}=${quote(v)}]`;
      if (v && unique(el, sel)) return prefix + sel;
    }
    return prefix + cssPath(el);
  };

  const target = (el) => ({ selector: selectorFor(el), target: describe(el) });

  // --- what is secret -----------------------------------------------------

  const luhn = (v) => {
    const d = v.replace(/[\s-]/g, '');
    if (!/^\d{13,19}$/.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < d.length; i++) {
      let n = +d[d.length - 1 - i];
      if (i % 2) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
      sum += n;
    }
    return sum % 10 === 0;
  };

  // secret names why a field's value is never reported: a password or a
  // card (this recorder's heuristics, wider than internal/sensitive's), or
  // any other sensitive element.
  const secret = (el, value) => {
    const type = (el.type || '').toLowerCase();
    const ac = (el.getAttribute('autocomplete') || '').toLowerCase();
    if (type === 'password' || /password|one-time-code/.test(ac))
      return 'password';
    if (/cc-(number|csc|exp)/.test(ac)) return 'card';
    const hint = [
      el.name,
      el.id,
      el.getAttribute('aria-label'),
      el.getAttribute('placeholder'),
      el.labels && el.labels.length ? el.labels[0].textContent : '',
    ]
      .join(' ')
      .toLowerCase();
    if (
      /passw|passwd|passcode|passphrase|\bpwd\b|secret|\botp\b|one.?time|\bpin\b/.test(
        hint,
      )
    ) {
      return 'password';
    }
    if (
      /card.?(num|no)|\bcc.?(num|no)|\bcvv|\bcvc|\bcsc\b|security.?code|card.?exp/.test(
        hint,
      )
    ) {
      return 'card';
    }
    if (luhn(value)) return 'card';
    return sensitive(el) ? 'sensitive' : '';
  };

  // --- recording ----------------------------------------------------------

  const origin = (e) =>
    e.composedPath()[0] instanceof Element ? e.composedPath()[0] : e.target;
  const activated = () => navigator.userActivation?.isActive !== false;

  const pending = new Map(); // text field → timer of its debounced report
  const sent = new WeakMap(); // text field → the value last reported
  // text field → when it was last typed into: a report is dated by the
  // typing, not by when it is sent (that tells the agent's typing from the
  // user's).
  const typed = new WeakMap();

  const reportText = (el) => {
    const value = el.isContentEditable ? el.innerText : el.value;
    if (sent.get(el) === value) return;
    sent.set(el, value);
    const masked = secret(el, value);
    const ev = {
      t: 'type',
      ...target(el),
      value: masked ? '' : clip(value, MAX_VALUE),
      at: typed.get(el),
    };
    if (masked) ev.masked = masked;
    post(ev);
  };

  // flush reports every text field still waiting, so actions keep their
  // order (the text typed, then the Enter or the click).
  const flush = () => {
    for (const [el, timer] of pending) {
      clearTimeout(timer);
      pending.delete(el);
      reportText(el);
    }
  };

  document.addEventListener(
    'input',
    (e) => {
      const el = origin(e);
      if (!e.isTrusted || !activated() || !textField(el)) return;
      typed.set(el, Date.now());
      clearTimeout(pending.get(el));
      pending.set(
        el,
        setTimeout(() => {
          pending.delete(el);
          reportText(el);
        }, 800),
      );
    },
    true,
  );

  document.addEventListener(
    'change',
    (e) => {
      const el = origin(e);
      if (!e.isTrusted || !activated()) return;
      if (el instanceof HTMLSelectElement) {
        flush();
        const values = [...el.selectedOptions].map((o) => o.value);
        const masked = sensitive(el);
        post({
          t: 'select',
          ...target(el),
          value: masked ? '' : el.multiple ? JSON.stringify(values) : el.value,
          ...(masked ? { masked: 'sensitive' } : {}),
        });
      } else if (input(el) && (el.type === 'checkbox' || el.type === 'radio')) {
        flush();
        post({ t: 'check', ...target(el), checked: el.checked });
      } else if (input(el) && el.type === 'file') {
        flush();
        const names = [...(el.files || [])].map((f) => f.name).join(', ');
        post({ t: 'upload', ...target(el), value: clip(names, MAX_VALUE) });
      } else if (textField(el)) {
        clearTimeout(pending.get(el));
        pending.delete(el);
        reportText(el);
      }
    },
    true,
  );

  // clickable is the element a click means: the nearest interactive
  // ancestor of what was hit (a span inside a button is the button).
  const interactive =
    'a[href],button,input,select,textarea,label,summary,option,[role=button],[role=link],' +
    '[role=menuitem],[role=tab],[role=checkbox],[role=radio],[role=option],[role=switch],[onclick]';
  const clickable = (el) => el.closest?.(interactive) || el;

  // Clicks on form fields are reported by what they change (the text
  // typed, the box checked, the option chosen), not as clicks.
  const fieldClick = (el) => {
    if (el instanceof HTMLLabelElement) el = el.control || el;
    return (
      textField(el) ||
      el instanceof HTMLSelectElement ||
      el instanceof HTMLOptionElement ||
      (input(el) && !buttonTypes.has(el.type))
    );
  };

  document.addEventListener(
    'click',
    (e) => {
      // detail 0: a click the keyboard made (Enter or Space on a button,
      // a form's implicit submission); the key press is recorded instead.
      if (!e.isTrusted || e.button !== 0 || e.detail === 0) return;
      const el = clickable(origin(e));
      if (!(el instanceof Element) || fieldClick(el)) return;
      flush();
      post({
        t: 'click',
        ...target(el),
        clicks: e.detail > 1 ? e.detail : undefined,
      });
    },
    true,
  );

  const navKeys = new Set([
    'ArrowUp',
    'ArrowDown',
    'ArrowLeft',
    'ArrowRight',
    'PageUp',
    'PageDown',
    'Home',
    'End',
  ]);
  const modifierKeys = new Set([
    'Control',
    'Alt',
    'Meta',
    'Shift',
    'AltGraph',
    'CapsLock',
  ]);

  document.addEventListener(
    'keydown',
    (e) => {
      if (!e.isTrusted || e.isComposing || modifierKeys.has(e.key)) return;
      const el = origin(e);
      const editable = el instanceof Element && textField(el);
      const mods = ['Control', 'Alt', 'Meta'].filter((m) =>
        e.getModifierState(m),
      );
      const wanted =
        e.key === 'Enter' ||
        e.key === 'Escape' ||
        (e.key === ' ' && el instanceof Element && roleOf(el) === 'button') ||
        (!editable && (mods.length > 0 || navKeys.has(e.key)));
      if (!wanted) return;
      flush();
      if (mods.length && e.shiftKey) mods.push('Shift');
      const key =
        e.key === ' '
          ? 'Space'
          : e.key.length === 1 && mods.length
            ? e.key.toUpperCase()
            : e.key;
      const onBody =
        !(el instanceof Element) ||
        el === document.body ||
        el === document.documentElement;
      post({
        t: 'key_press',
        ...(onBody ? {} : target(el)),
        keys: [...mods, key].join('+'),
      });
    },
    true,
  );

  // No pagehide (or unload) listener: one changes how Chrome navigates
  // away from the page (a browser-initiated navigation then waits for the
  // old document). Leaving a field blurs it, and the change reports it.

  // --- navigations (top frame) -------------------------------------------

  if (top) {
    const index = () => {
      try {
        return navigation.currentEntry.index;
      } catch {
        return -1;
      }
    };
    const type = performance.getEntriesByType('navigation')[0]?.type || '';
    // A new document starts while it loads; otherwise this runs in a
    // document that was there before capture (or before a re-attach).
    const ev =
      document.readyState === 'loading'
        ? { t: 'nav', nav: type }
        : { t: 'ready' };
    post({ ...ev, index: index(), url: location.href });
    // The page's own navigations (links, forms, scripts) fire navigate in
    // the document that starts them; the browser's (address bar, back
    // button, reload button) do not.
    try {
      navigation.addEventListener('navigate', (e) => {
        if (!e.destination.sameDocument && !e.downloadRequest)
          post({ t: 'navigating', nav: e.navigationType });
      });
    } catch {
      // no Navigation API: every navigation counts as the browser's
    }
  }
})();
