// visible(el): whether a person can see el on the page; visibleText(el):
// whether the text directly inside el can be read. Every analyze mode
// drops page text that fails them (and counts it, never shows it): hidden
// text is how pages smuggle instructions to agents.
function visible(el) {
  if (!el || el.nodeType !== 1 || !el.isConnected) return false;
  const cs = getComputedStyle(el);
  if (cs.display === 'contents') return !el.parentElement || visible(el.parentElement);
  if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) return false;
  const r = el.getBoundingClientRect();
  if (r.right + scrollX <= 0 || r.bottom + scrollY <= 0) return false; // moved off the page
  if (r.width <= 1 || r.height <= 1) {
    if (cs.overflow !== 'visible' || cs.clip === 'rect(0px, 0px, 0px, 0px)') return false; // clipped away (sr-only)
    for (const c of el.children) if (visible(c)) return true;
    return false;
  }
  return true;
}

function visibleText(el) {
  if (!visible(el)) return false;
  const cs = getComputedStyle(el);
  if (parseFloat(cs.fontSize) < 1) return false;
  const alpha = /rgba\([^)]*,\s*([\d.]+)\)/.exec(cs.color);
  return !(alpha && parseFloat(alpha[1]) === 0);
}
