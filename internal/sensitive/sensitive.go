// Package sensitive is Gasoline's one definition of a sensitive element:
// one whose value or text never reaches the agent, by any answer. A
// screenshot paints it black; a snapshot, get_value, get_text, query and
// analyze's HTML show •••• in place of its value or text. It is a list of
// CSS selectors — built in (password and card fields, one-time codes,
// anything marked data-gasoline-mask) plus the redaction policy's
// mask_selectors — so a screenshot's style rule and a script's
// el.matches() test the same thing, and one computed style: an element
// the page draws as dots (-webkit-text-security) is sensitive whatever
// it is (the screenshot marks those before its rule paints them).
package sensitive

import (
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Builtin are always sensitive: password fields, fields the page marks as
// passwords, one-time codes or card details (autocomplete), card fields by
// name and id, and anything marked data-gasoline-mask. The redaction
// policy's mask_selectors add to them.
var Builtin = []string{
	`input[type=password i]`,
	`input[autocomplete*=password i]`, `input[autocomplete~=one-time-code i]`,
	`input[autocomplete^="cc-" i]`, `input[autocomplete*=" cc-" i]`,
	`input[name*=card i]`, `input[id*=card i]`, `input[name*=cvv i]`, `input[name*=cvc i]`, `input[name*=csc i]`,
	`input[id*=cvv i]`, `input[id*=cvc i]`, `input[name*=ccnum i]`, `input[name*=cc-num i]`,
	`[data-gasoline-mask]`,
}

// Selectors returns the built-in selectors followed by the user's.
func Selectors(user []string) []string {
	return append(slices.Clone(Builtin), user...)
}

// Func returns the user's selectors (the redaction policy's
// mask_selectors), or the error that makes the policy unusable.
type Func func() ([]string, error)

// Of returns the built-in selectors and the ones f adds; a nil f adds
// none. When the policy is not usable it returns a redaction_failed tool
// error: callers refuse to answer rather than answer unmasked.
func Of(f Func) ([]string, error) {
	if f == nil {
		return Selectors(nil), nil
	}
	user, err := f()
	if err != nil {
		return nil, tools.Errorf("redaction_failed", "refused: the redaction policy is not usable (%v), so sensitive fields cannot be told apart; fix it (configure {what:\"redaction\", op:\"get\"} shows the error)", err)
	}
	return Selectors(user), nil
}

// JS declares, for scripts that run in the page:
//
//   - gasolineSecretTest(sels): a test el => bool of whether el itself is
//     sensitive: it matches one of sels (a selector the browser rejects
//     matches nothing) or is drawn as dots (DotsJS), one el.matches() and
//     one computed style per element, for walkers that carry what they are
//     inside down the tree; test(el, cs) reads el's computed style cs
//     when the walker has it already;
//   - gasolineSecret(el, sels): whether el, or an element it sits in
//     (across shadow roots), is sensitive. Text inside a sensitive
//     element is as sensitive as the element;
//   - gasolineSecretIn(el, test): the same with a test made once;
//   - gasolineDrawnAsDots(el) (DotsJS).
const JS = `function gasolineSecretTest(sels) {
  const ok = [];
  for (const s of sels || []) {
    try { document.createDocumentFragment().querySelector(s); ok.push(s); } catch {} // throws on a selector the browser rejects; works before the document has an element
  }
  const all = ok.join(',');
  // cs: el's computed style when the caller has it (a walker), so that
  // the dots test reads it instead of making another.
  const dots = (el, cs) => {
    if (!cs) return gasolineDrawnAsDots(el);
    const v = cs.getPropertyValue('-webkit-text-security');
    return v !== '' && v !== 'none';
  };
  return (el, cs) => !!el && el.nodeType === 1 && ((all !== '' && el.matches(all)) || dots(el, cs));
}
function gasolineSecretIn(el, test) {
  for (let e = el; e; e = e.parentElement || (e.getRootNode && e.getRootNode().host) || null) {
    if (test(e)) return true;
  }
  return false;
}
function gasolineSecret(el, sels) {
  return gasolineSecretIn(el, gasolineSecretTest(sels));
}
` + DotsJS

// DotsJS declares gasolineDrawnAsDots(el): whether the page draws el's
// text as dots (-webkit-text-security other than none, how sites show a
// PIN in a type=text field), which makes it sensitive like a password
// field whatever its type. The property is inherited, so text inside
// such an element is drawn as dots too.
const DotsJS = `function gasolineDrawnAsDots(el) {
  const view = el.ownerDocument && el.ownerDocument.defaultView;
  if (!view) return false;
  const v = view.getComputedStyle(el).getPropertyValue('-webkit-text-security');
  return v !== '' && v !== 'none';
}`

// Mask is what an answer shows in place of a sensitive value or text.
const Mask = "••••"
