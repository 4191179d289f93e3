// Package visible holds Gasoline's in-page test of whether a person can
// see a piece of text, shared by every page script that hands page text to
// the agent, so that hidden text never reaches it however the page hides
// it (SAFETY.md, "Page content is untrusted"; docs/UNTRUSTED.md). It
// judges what the browser draws: the renderer's boxes for each text run
// (per line and per word where only part shows), the colour its glyphs
// and the pixels beside them end up after opacity, filters, masks and
// blend modes (colours painted by the browser, any colour space), what is
// painted over it in paint order (paint.js), its size on screen and which
// way it faces; running animations are judged on their settled state.
//
// How a page script uses it: run JS once in the isolated world before the
// script (the actions engine evaluates JS + its helpers; a function run by
// Runtime.callFunctionOn is wrapped with Wrap), then read
// globalThis.__gasolineVisible:
//
//	V.text(el[, limit]) → {text, dropped, why}
//	                               the text a person sees in el, laid out like
//	                               innerText; dropped counts unseen text runs,
//	                               why tallies them by reason. Unseen text
//	                               inside a control (a visually hidden label in
//	                               a button or link) stays, up to V.NAME_CAP
//	                               characters: its accessible name.
//
// A tree walker that computes styles itself threads a context down:
//
//	V.begin([keep])                start of a walk (clears per-document caches and the tally);
//	                               keep: the walk only reads the page, so V.context may
//	                               remember what it computed until the next begin
//	c = V.context(el)              the context of el's children, from the root down
//	                               (V.context(iframeDoc.body, iframeCtx) inside a frame)
//	k = V.enter(el, cs, c)         the context of el's children, from its parent's
//	V.textHidden(textNode, cs, k)  why the text child of el (style cs) is unseen: '' when
//	                               it shows, a reason, or {keep, why} when only the words
//	                               in keep show
//	V.boxHidden(el, cs, k)         why el's own box (an image, a frame) is unseen, or ''
//	V.count(why), V.tally()        count a dropped run by reason; the tally since begin
//
// Answers that dropped text report it as hidden_dropped (a count) and
// hidden_reasons (by reason) in their structuredContent (the MCP
// dispatcher adds the note to the text).
package visible

import (
	_ "embed"
	"sync"
)

var (
	//go:embed colour.js
	colourJS string
	//go:embed paint.js
	paintJS string
	//go:embed visible.js
	visibleJS string
)

// JS returns the script that installs globalThis.__gasolineVisible in the
// world it runs in; it is a statement (an arrow function called at once)
// and does nothing when the world has it already. It is put together on
// first use, not at every start of gasoline-host (the relays never need
// its 64 KB).
var JS = sync.OnceValue(func() string {
	return "(() => {\nif (globalThis.__gasolineVisible) return;\n" + colourJS + "\n" + paintJS + "\n" + visibleJS + "\n})();"
})

// Wrap returns a function declaration for Runtime.callFunctionOn that
// installs JS and then calls fn (a function declaration or expression)
// with the same this and arguments. V8 compiles the wrapped source once per
// world, as it would fn.
func Wrap(fn string) string {
	return "function (...args) {\n" + JS() + "\nreturn (" + fn + ").apply(this, args);\n}"
}

// NotVisible labels page text that no person sees on the page — an
// attribute's value, a <meta> tag, a name taken from a hidden element, a
// console message, a response body — where an answer passes it on: it is
// page data like the rest (fenced and scanned), and not what the page
// shows. Answers put it beside such text, and list the structured fields
// that hold it under not_visible.
const NotVisible = "not visible"
