package observe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The screenshot's mask over sensitive fields (docs/REDACTION.md).
//
// Painting the mask is a style change, and a style change costs Chrome a
// main-frame update before the frame a capture copies: a masked capture
// waits a frame more than a bare one (bench/README.md, "Screenshot
// timings move in whole frames"). A page with nothing to mask — no
// sensitive element in any document or shadow root the page reaches, no
// frame out of reach — is therefore not painted but watched: maskOn
// leaves a MutationObserver on each of those roots instead of a style, and
// maskHeld, after the capture, checks that nothing that could be
// sensitive appeared meanwhile (an element added that matches or holds a
// selector, a frame or a shadow root, an attribute the selectors read
// changed, a root that came or went) and that there is still nothing to
// mask. If something did, the image is discarded and the capture runs
// again with the mask painted (Capture). It fails closed either way.

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
// painted black whole. It reports the tab's visibility, how many elements
// the mask covers, how many frames it blacked out, and whether it watched
// instead.
const maskOn = `((sels, rule, token, watch) => {` + sensitive.DotsJS + maskWalk + maskDots + `
  const roots = [], opaque = [];
  walk((root) => roots.push(root), (el) => { if (el.getAttribute('data-gasoline-inside') !== token) opaque.push(el); });
  const hit = new Set(), dots = [];
  for (const root of roots) {
    for (const x of sels) { try { root.querySelectorAll(x).forEach((e) => hit.add(e)); } catch {} }
    root.querySelectorAll('*').forEach((e) => { if (gasolineDrawnAsDots(e)) { dots.push(e); hit.add(e); } });
  }
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
      Object.defineProperty(globalThis, Symbol.for('gasoline.watch'), {value: w, configurable: true});
      return true;
    } catch { w.obs.forEach((o) => o.disconnect()); return false; }
  };
  if (watch && !hit.size && !opaque.length && watched()) return {visibility: document.visibilityState, count: 0, frames: 0, watched: true};
  const css = sels.map((x) => x + rule).concat('[data-gasoline-opaque="' + token + '"]' + rule, '[data-gasoline-dots="' + token + '"]' + rule).join('\n');
  for (const root of roots) {
    root.querySelectorAll('style#__gasoline_mask').forEach((x) => x.remove());
    const s = (root.ownerDocument || root).createElement('style');
    s.id = '__gasoline_mask'; s.dataset.token = token; s.textContent = css;
    (root.head || root.documentElement || root).appendChild(s);
  }
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

// maskScripts builds the mask for the built-in and the user's selectors.
// watch lets a page with nothing to mask be watched rather than painted,
// when every selector depends on attributes alone (watchAttrs). It fails
// closed: no usable policy, no mask, no screenshot.
func maskScripts(c *mcpserver.Call, watch bool) (masking, error) {
	user, err := c.MaskSelectors()
	if err != nil {
		return masking{}, tools.Errorf("redaction_failed", "the screenshot was refused because the redaction policy is not usable (%v); fix it (configure {what:\"redaction\", op:\"get\"} shows the error)", err)
	}
	all := sensitive.Selectors(user)
	sels, _ := json.Marshal(all)
	token := strconv.FormatInt(time.Now().UnixNano(), 36)
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
