// The one way the panel makes elements: text goes in with textContent.

/** Creates an element with a class and optional text. */
export function el(doc, tag, className, text) {
  const e = doc.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

/** Appends a labelled value to dl; returns both elements. */
export function fact(doc, dl, label, key) {
  const dt = el(doc, 'dt', '', label);
  const dd = el(doc, 'dd', key);
  dd.dataset.field = key;
  dl.append(dt, dd);
  return [dt, dd];
}
