// analyze forms: every form (and the controls outside any form) with its
// fields, their labels, constraints and validation state. Values are never
// read except to say whether a field is filled; validity comes from the
// ValidityState (no checkValidity: it would fire invalid events).
(opts) => {
  const roots = within(opts.selector);
  const CONTROLS = 'input, select, textarea, button, [contenteditable=""], [contenteditable="true"]';
  const forms = new Map();
  const groupOf = (el) => {
    const f = el.form || el.closest('form');
    const key = f || null;
    if (!forms.has(key)) forms.set(key, { form: f, fields: [], buttons: [] });
    return forms.get(key);
  };
  const VALIDITY = ['valueMissing', 'typeMismatch', 'patternMismatch', 'tooLong', 'tooShort', 'rangeUnderflow', 'rangeOverflow', 'stepMismatch', 'badInput', 'customError'];
  const seen = new Set();
  for (const root of roots) {
    const list = root.matches && root.matches(CONTROLS) ? [root] : [];
    if (root.localName === 'form') list.push(...root.elements);
    list.push(...root.querySelectorAll(CONTROLS));
    for (const el of list) {
      if (seen.has(el)) continue;
      seen.add(el);
      const tag = el.localName;
      const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : tag === 'button' ? (el.getAttribute('type') || 'submit').toLowerCase() : tag;
      if (type === 'hidden') continue;
      const g = groupOf(el);
      const shown = visible(el);
      if (tag === 'button' || (tag === 'input' && ['submit', 'reset', 'button', 'image'].includes(type))) {
        g.buttons.push({ type, text: tag === 'button' ? textOf(el, 100) : clip(norm(el.value || el.alt || ''), 100), ref: refOf(el), selector: cssPath(el), disabled: el.disabled, visible: shown });
        continue;
      }
      const [label, from] = nameOf(el);
      const v = el.validity;
      const f = {
        tag, type, name: el.getAttribute('name') || '', id: el.id || '',
        label, label_from: from,
        required: !!el.required || el.getAttribute('aria-required') === 'true',
        disabled: !!el.disabled, readonly: !!el.readOnly, visible: shown,
        autocomplete: el.getAttribute('autocomplete') || '',
        ref: refOf(el), selector: cssPath(el),
      };
      if (type === 'checkbox' || type === 'radio') f.checked = el.checked;
      else if (tag === 'select') f.selected = [...el.selectedOptions].map((o) => clip(norm(o.text), 80));
      else f.filled = tag === 'input' || tag === 'textarea' ? el.value !== '' : textOf(el, 1) !== '';
      const c = {};
      for (const a of ['pattern', 'min', 'max', 'minlength', 'maxlength', 'step']) if (el.hasAttribute && el.hasAttribute(a)) c[a] = el.getAttribute(a);
      if (Object.keys(c).length) f.constraints = c;
      if (v) {
        f.valid = v.valid;
        if (!v.valid) {
          f.errors = VALIDITY.filter((k) => v[k]);
          // The browser's message can quote the value ('x' is missing an '@').
          f.message = el.value ? el.validationMessage.split(el.value).join('…') : el.validationMessage;
        }
      }
      if (el.getAttribute('aria-invalid') === 'true') f.aria_invalid = true;
      g.fields.push(f);
    }
  }
  const out = [];
  for (const g of forms.values()) {
    const fm = g.form;
    out.push({
      id: fm ? fm.id || '' : '',
      name: fm ? fm.getAttribute('name') || '' : '',
      label: fm ? nameOf(fm)[0] || (fm.querySelector('legend') ? textOf(fm.querySelector('legend'), 100) : '') : '',
      action: fm ? fm.action : '',
      method: fm ? (fm.getAttribute('method') || 'get').toLowerCase() : '',
      novalidate: fm ? fm.noValidate : false,
      ref: fm ? refOf(fm) : 0,
      selector: fm ? cssPath(fm) : '',
      fields: g.fields,
      buttons: g.buttons,
    });
  }
  return { url: location.href, forms: out };
}
