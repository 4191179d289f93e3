// Package visible holds Gasoline's in-page test of whether a person can
// see a piece of text (visible.js), shared by every page script that hands
// page text to the agent, so that hidden text never reaches it whichever
// CSS hides it (SAFETY.md, "Page content is untrusted").
//
// How a page script uses it: run JS once in the isolated world before the
// script (the actions engine evaluates JS + its helpers; a function run by
// Runtime.callFunctionOn is wrapped with Wrap), then read
// globalThis.__gasolineVisible:
//
//	V.text(el[, limit]) → {text, dropped}
//	                               the text a person sees in el, laid out like
//	                               innerText; dropped counts unseen text runs.
//	                               Unseen text inside a control (a visually
//	                               hidden label in a button or link) stays, up
//	                               to V.NAME_CAP characters: its accessible name.
//
// A tree walker that computes styles itself threads a context down:
//
//	V.begin()                      start of a walk (clears per-document caches)
//	c = V.context(el)              the context of el's children, from the root down
//	                               (V.context(iframeDoc.body, iframeCtx) inside a frame)
//	k = V.enter(el, cs, c)         the context of el's children, from its parent's
//	V.textHidden(textNode, cs, k)  why the text child of el (style cs) is unseen, or ''
//	V.boxHidden(el, cs, k)         why el's own box (an image, a frame) is unseen, or ''
//
// Answers that dropped text report it as hidden_dropped in their
// structuredContent (the MCP dispatcher adds the note to the text).
package visible

import _ "embed"

// JS installs globalThis.__gasolineVisible in the world it runs in; it is
// a statement (an arrow function called at once) and does nothing when the
// world has it already.
//
//go:embed visible.js
var JS string

// Wrap returns a function declaration for Runtime.callFunctionOn that
// installs JS and then calls fn (a function declaration or expression)
// with the same this and arguments. V8 compiles the wrapped source once per
// world, as it would fn.
func Wrap(fn string) string {
	return "function (...args) {\n" + JS + "\nreturn (" + fn + ").apply(this, args);\n}"
}
