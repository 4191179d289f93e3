package observe

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The screenshot's mask over sensitive fields (docs/REDACTION.md).
//
// A page with nothing to mask — no sensitive element in any document or
// shadow root the page reaches, no frame out of reach — is not painted
// but watched: maskOn leaves a MutationObserver on each of those roots
// instead of a style, and maskHeld, after the capture, checks that nothing
// that could be sensitive appeared meanwhile (an element added that
// matches or holds a selector, a frame or a shadow root, an attribute the
// selectors read changed, a root that came or went) and that there is
// still nothing to mask. If something did, the image is discarded and the
// capture runs again with the mask painted (Capture). It fails closed
// either way.
//
// What the mask costs. The style change itself costs Chrome no frame: in
// raw CDP, a background tab held painting, each capture started at a
// random point of a frame, hold + capture, hold + this mask (its scripts
// as they are) + capture, the same without the filter, and a bare style
// element all average 38–40 ms (bench/README.md, "Where a masked
// screenshot's time goes"). What it costs is script time on the capture's path,
// in the tab's renderer and through the relay: maskOn ~1 ms painted
// (~0.5 watched), and each script's compile. So maskOn puts the style in
// before it reads any computed style (one style recalc serves the check
// for dots and the capture's frame), and every capture under the same
// selectors sends the same scripts (maskToken), whose compiled code V8
// keeps: the masked capture's first and last steps together take ~1.5 ms
// less over the relay.

// maskRule paints a masked element black, content and children included.
const maskRule = `{filter:brightness(0) !important;color:#000 !important;-webkit-text-fill-color:#000 !important;` +
	`background:#000 !important;text-shadow:none !important}`

// maskOn finds the documents and shadow roots the page's main world
// reaches: the document, open shadow roots and same-origin frames,
// recursively. A frame whose document it cannot reach is left as it is
// when Gasoline masks it in its own session (an out-of-process frame, its
// element marked data-gasoline-inside by capture); any other (a
// cross-origin frame in the page's process) is out of reach. Sensitive is
// what a selector matches and what the page draws as dots
// (internal/sensitive: no selector says so, the style does). With nothing
// to mask and watch set (the attributes the selectors read), it watches
// (above; a class or style change, or a style sheet added, that draws
// something as dots counts as a change). Otherwise each root gets a style
// element stamped with the token and holding one rule per selector (a
// selector the browser rejects drops only its own rule), each element
// drawn as dots and each frame out of reach is marked with the token and
// painted black whole. When a selector matches or a frame is out of
// reach, the style goes in before the check for dots reads computed
// styles, so the style recalc that read forces is the one the capture's
// frame needs (the mask's rule does not change what is drawn as dots), and
// the check sees the page as the capture draws it. A watch an earlier
// capture left behind is dropped first. It reports the tab's visibility,
// how many elements the mask covers, how many frames it blacked out, and
// whether it watched instead.
const maskOn = `((sels, rule, token, watch) => {` + sensitive.DotsJS + maskWalk + maskDots + `
  const key = Symbol.for('gasoline.watch'), left = globalThis[key];
  if (left) { try { left.obs.forEach((o) => o.disconnect()); } catch {} delete globalThis[key]; }
  const roots = [], opaque = [];
  walk((root) => roots.push(root), (el) => { if (el.getAttribute('data-gasoline-inside') !== token) opaque.push(el); });
  const hit = new Set(), dots = [];
  for (const root of roots) for (const x of sels) { try { root.querySelectorAll(x).forEach((e) => hit.add(e)); } catch {} }
  const css = sels.map((x) => x + rule).concat('[data-gasoline-opaque="' + token + '"]' + rule, '[data-gasoline-dots="' + token + '"]' + rule).join('\n');
  let painted = false;
  const paint = () => {
    painted = true;
    for (const root of roots) {
      root.querySelectorAll('style#__gasoline_mask').forEach((x) => x.remove());
      const s = (root.ownerDocument || root).createElement('style');
      s.id = '__gasoline_mask'; s.dataset.token = token; s.textContent = css;
      (root.head || root.documentElement || root).appendChild(s);
    }
  };
  if (!watch || hit.size || opaque.length) paint();
  for (const root of roots) root.querySelectorAll('*').forEach((e) => { if (gasolineDrawnAsDots(e)) { dots.push(e); hit.add(e); } });
  const watched = () => {
    const all = sels.filter((x) => { try { document.createDocumentFragment().querySelector(x); return true; } catch { return false; } }).join(',');
    const frame = 'iframe,frame,object,embed';
    const risky = (el) => el.nodeType === 1 && (!!all && (el.matches(all) || !!el.querySelector(all)) ||
      el.matches(frame) || !!el.querySelector(frame) || !!el.shadowRoot || [...el.querySelectorAll('*')].some((x) => x.shadowRoot) ||
      dotsIn(el));
    const sheet = (n) => !!n && n.nodeType === 1 && n.matches('style,link');
    const w = {token, obs: [], roots, changed: false};
    w.see = (records) => {
      for (const r of records) {
        if (r.type === 'attributes') {
          if (watch.includes(r.attributeName) || dotsIn(r.target)) w.changed = true;
        } else if ([...r.addedNodes].some(risky)) {
          w.changed = true;
        } else if ((sheet(r.target) || sheet(r.target.parentNode) || [...r.addedNodes].some(sheet)) && anyDots(w.roots)) {
          w.changed = true;
        }
      }
    };
    try {
      for (const root of roots) {
        const o = new MutationObserver(w.see); w.obs.push(o);
        o.observe(root, {subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: [...new Set(watch.concat('class', 'style'))]});
      }
      Object.defineProperty(globalThis, key, {value: w, configurable: true});
      return true;
    } catch { w.obs.forEach((o) => o.disconnect()); return false; }
  };
  if (!painted && !hit.size && watched()) return {visibility: document.visibilityState, count: 0, frames: 0, watched: true};
  if (!painted) paint();
  for (const el of dots) el.setAttribute('data-gasoline-dots', token);
  for (const el of opaque) el.setAttribute('data-gasoline-opaque', token);
  return {visibility: document.visibilityState, count: hit.size, frames: opaque.length};
})(%s, %q, %q, %s)`

// maskHeld runs after the capture. Where maskOn painted, it reports
// whether the mask with token is still where maskOn put it — in every
// document and shadow root, and on every frame it could not reach,
// reached the same way — and removes it and the marks on frames and on
// elements drawn as dots: "ok", or "gone" (a navigation during the
// capture, of the tab or of a frame, or a frame or shadow root that
// appeared since). Where maskOn watched, it stops watching and reports
// "ok", or "changed" when something that could be sensitive appeared (see
// above) or is there now.
const maskHeld = `((token, sels) => {` + sensitive.DotsJS + maskWalk + maskDots + `
  const key = Symbol.for('gasoline.watch'), w = globalThis[key];
  if (w && w.token === token) {
    delete globalThis[key];
    for (const o of w.obs) { w.see(o.takeRecords()); o.disconnect(); }
    const roots = []; let opaque = 0;
    walk((root) => roots.push(root), () => { opaque++; });
    let ok = !w.changed && !opaque && roots.length === w.roots.length && roots.every((r, i) => r === w.roots[i]);
    for (const root of roots) for (const x of sels) { try { if (root.querySelector(x)) ok = false; } catch {} }
    if (ok && anyDots(roots)) ok = false;
    return ok ? 'ok' : 'changed';
  }
  let ok = true;
  walk((root) => {
    const mine = root.querySelectorAll('style#__gasoline_mask');
    if (![...mine].some((x) => x.dataset.token === token)) ok = false;
    mine.forEach((x) => x.remove());
    root.querySelectorAll('[data-gasoline-dots]').forEach((e) => e.removeAttribute('data-gasoline-dots'));
  }, (el) => {
    const inside = el.getAttribute('data-gasoline-inside') === token;
    if (!inside && el.getAttribute('data-gasoline-opaque') !== token) ok = false;
    el.removeAttribute('data-gasoline-opaque'); el.removeAttribute('data-gasoline-inside');
  });
  return ok ? 'ok' : 'gone';
})(%q, %s)`

// maskDots declares dotsIn(el), whether el or an element inside it is
// drawn as dots, and anyDots(roots), whether one in those roots is.
const maskDots = `
  const dotsIn = (el) => el.nodeType === 1 && (gasolineDrawnAsDots(el) || [...el.querySelectorAll('*')].some(gasolineDrawnAsDots));
  const anyDots = (roots) => roots.some((r) => [...r.querySelectorAll('*')].some(gasolineDrawnAsDots));`

// maskWalk declares walk(onRoot, onOpaque), the one walk maskOn and
// maskHeld share: onRoot for the document, each open shadow root and each
// same-origin frame's document (recursively, each before what it holds),
// onOpaque for each frame element whose document it cannot reach.
const maskWalk = `
  const walk = (onRoot, onOpaque) => {
    const visit = (root) => {
      onRoot(root);
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot);
        if (!el.contentWindow) continue;
        let doc = null; try { doc = el.contentDocument; } catch {}
        if (doc) visit(doc);
        else onOpaque(el);
      }
    };
    visit(document);
  };`

// maskState is what maskOn reports.
type maskState struct {
	Visibility string `json:"visibility"`
	Count      int    `json:"count"`
	Frames     int    `json:"frames"`
	Watched    bool   `json:"watched"`
}

// Mask is what a masked capture covered: the elements the mask painted
// black, and the cross-origin frames it blacked out whole.
type Mask struct {
	Elements int
	Frames   int
}

// masking is one capture's mask: the scripts that install it (or watch)
// and check it, stamped with a token.
type masking struct {
	on, held, token string
}

// maskSeed is this daemon's part of every mask token.
var maskSeed = sync.OnceValue(func() string { return randomHex(12) })

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand's Read never fails
	return hex.EncodeToString(b)
}

// maskToken stamps a capture's mask: what maskHeld finds to know the mask
// is the one this policy installed. It is the same for every capture
// under the same selectors (a hash of the daemon's seed and the mask's
// CSS), so the scripts' text is the same from one capture to the next and
// V8 reuses their compiled code (0.4–0.9 ms less per script in raw CDP on
// the form page, ~1.5 ms less per capture over the relay; bench/README.md).
// A mask left behind by an earlier capture that carries it holds the same
// CSS; maskOn replaces it anyway, and drops a watch left behind.
// fresh gives one capture a token of its own: a capture that masks
// out-of-process frames marks their elements with it, and a mark left
// behind must never spare a frame from being painted black later.
func maskToken(sels []byte, fresh bool) string {
	if fresh {
		return randomHex(9)
	}
	h := sha256.Sum256([]byte(maskSeed() + maskRule + string(sels)))
	return hex.EncodeToString(h[:9])
}

// maskScripts builds the mask for the built-in and the user's selectors.
// watch lets a page with nothing to mask be watched rather than painted,
// when every selector depends on attributes alone (watchAttrs); fresh
// stamps it with a token of its own (maskToken). It fails closed: no
// usable policy, no mask, no screenshot.
func maskScripts(c *mcpserver.Call, watch, fresh bool) (masking, error) {
	user, err := c.MaskSelectors()
	if err != nil {
		return masking{}, tools.Errorf("redaction_failed", "the screenshot was refused because the redaction policy is not usable (%v); fix it (configure {what:\"redaction\", op:\"get\"} shows the error)", err)
	}
	all := sensitive.Selectors(user)
	sels, _ := json.Marshal(all)
	token := maskToken(sels, fresh)
	w := "false"
	if attrs, ok := watchAttrs(all); ok && watch {
		b, _ := json.Marshal(attrs)
		w = string(b)
	}
	return masking{on: fmt.Sprintf(maskOn, sels, maskRule, token, w), held: fmt.Sprintf(maskHeld, token, sels), token: token}, nil
}

// watchAttrs returns the attributes the selectors read (an id selector
// reads id, a class selector class, [name…] name), which is what the watch
// must see change. ok is false when a selector depends on anything a
// mutation does not show — a pseudo-class (:focus, :checked, …) — or
// cannot be read: such a page is always painted.
func watchAttrs(sels []string) (attrs []string, ok bool) {
	seen := map[string]bool{}
	add := func(a string) {
		if a = strings.ToLower(a); a != "" && !seen[a] {
			seen[a] = true
			attrs = append(attrs, a)
		}
	}
	for _, s := range sels {
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '[':
				j := i + 1
				for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
					j++
				}
				k := j
				for k < len(s) && isNameByte(s[k]) {
					k++
				}
				if k == j {
					return nil, false
				}
				add(s[j:k])
				end := closingBracket(s, k)
				if end < 0 {
					return nil, false
				}
				i = end
			case '.':
				add("class")
			case '#':
				add("id")
			case ':', '\\', '"', '\'', '(':
				return nil, false
			}
		}
	}
	return attrs, len(attrs) > 0
}

func isNameByte(b byte) bool {
	return b == '-' || b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// closingBracket returns the index of the ] that ends an attribute
// selector whose name ends at i, skipping quoted values; -1 when there is
// none.
func closingBracket(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case ']':
			return i
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return -1
			}
		}
	}
	return -1
}
