package actions

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TypeArgs are type's arguments.
type TypeArgs struct {
	Target
	Text  string
	Clear bool // replace the field's content instead of appending
}

// Type types text into a field: it focuses the field, puts the caret at
// the end (or selects everything with Clear), inserts the text with
// Input.insertText (a newline in a one-line input presses Enter), and
// reads the value back to check that it changed.
func (e *Engine) Type(ctx context.Context, tab int, args TypeArgs) (*Result, error) {
	return e.run(ctx, tab, "type", runOpts{probe: true, lazy: lazyProbe(args.Target)}, func(ctx context.Context, a *act) error { return a.doType(ctx, args) })
}

const (
	focusTypingJS = `function (o) { return globalThis.__gasolineActions.focusForTyping(this, o) }`
	valueJS       = `function () { return globalThis.__gasolineActions.value(this) }`
)

func (a *act) doType(ctx context.Context, args TypeArgs) error {
	switch {
	case args.Ref != "":
		return a.refAndType(ctx, args)
	case args.Selector != "":
		return a.findAndType(ctx, args)
	}
	el, err := a.resolve(ctx, args.Target, true)
	if err != nil {
		return err
	}
	return a.typeInto(ctx, el, args.Text, args.Clear)
}

// typingOpts is focusForTyping's second argument.
func (a *act) typingOpts(clear bool) map[string]any {
	return map[string]any{"clear": clear, "mask": a.mask}
}

// typing is what focusForTyping answers.
type typing struct {
	Before    *string `json:"before"`
	Multiline bool    `json:"multiline"`
	Desc      string  `json:"desc"`
	Secret    bool    `json:"secret"`
	Editor    bool    `json:"editor"` // a code editor or contenteditable: text lands at its own caret
	U         string  `json:"u"`
	T         string  `json:"t"`
}

// valueStateJS reads a field's value (this is the field, or an object
// holding it as .el) and, in the main frame's world, the page's url and
// title: the action's after probe, in the same round trip.
const valueStateJS = `function () {
  const el = this.nodeType ? this : this.el;
  return {v: globalThis.__gasolineActions.value(el), u: location.href, t: document.title};
}`

// refFocusJS focuses a ref's field for typing (refJS finds it).
const refFocusJS = `(el, o) => Object.assign({el, u: location.href, t: document.title},
  globalThis.__gasolineActions.focusForTyping(el, o))`

// refAndType types into a ref's field. Text without line breaks goes in
// one round trip over the extension link (typeSequence); otherwise the
// field is found and focused in one round trip in the snapshot's world,
// and each line typed apart (Enter between them in a one-line field).
func (a *act) refAndType(ctx context.Context, args TypeArgs) error {
	if oneLine(args.Text) {
		return a.typeSequence(ctx, args)
	}
	return a.refFocusAndType(ctx, args)
}

// refFocusAndType finds and focuses a ref's field in one round trip, then
// types.
func (a *act) refFocusAndType(ctx context.Context, args TypeArgs) error {
	el, o, err := a.refCall(ctx, args.Ref, refFocusJS, asWrapper, a.typingOpts(args.Clear))
	if err != nil {
		return err
	}
	var t typing
	if el.backend, err = deepInto(o.DeepSerializedValue, &t); err != nil {
		return err
	}
	a.sawBefore(ctx, el, t.U, t.T)
	return a.typeFocused(ctx, el, t, args.Text, args.Clear)
}

// oneLine reports text that types in one Input.insertText (typeSteps).
func oneLine(text string) bool { return text != "" && !strings.ContainsAny(text, "\r\n") }

// findFocusJS finds a field and focuses it for typing in one call.
const findFocusJS = `function (q, o) {
  const G = globalThis.__gasolineActions;
  const el = G.find(q, true);
  return Object.assign({el, u: location.href, t: document.title}, G.focusForTyping(el, o));
}`

// findAndType types into the field a selector names, finding and
// focusing it in one round trip: focusing changes neither url nor title,
// so it need not wait for the before probe.
func (a *act) findAndType(ctx context.Context, args TypeArgs) error {
	sel, err := ParseSelector(args.Selector)
	if err != nil {
		return errorf(CodeInvalidTarget, "selector %q: %v", args.Selector, err)
	}
	if args.Frame == "" && oneLine(args.Text) {
		q := query{Selector: sel, Text: args.Selector}
		if done, err := a.typeSelectorSequence(ctx, args, q); done {
			return err
		}
	}
	for try := 0; ; try++ {
		sid, frame := "", cdproto.FrameID("")
		if args.Frame != "" {
			if sid, frame, err = a.frameOf(ctx, args.Frame); err != nil {
				return err
			}
		}
		ec, frame, err := a.world(ctx, sid, frame)
		if err != nil {
			return err
		}
		s := a.e.session(a.tab, sid)
		c := jsCall{fn: findFocusJS, context: ec, args: []any{query{Selector: sel, Text: args.Selector}, a.typingOpts(args.Clear)}}
		o, err := call(ctx, s, c, asWrapper)
		if errors.Is(err, errWorldGone) && try == 0 {
			a.forgetAll()
			continue
		}
		if err != nil {
			return err
		}
		var t typing
		backend, err := deepInto(o.DeepSerializedValue, &t)
		if err != nil {
			return err
		}
		el := &elem{sid: sid, s: s, frame: frame, ec: ec, backend: backend, wrap: o.ObjectID, desc: t.Desc}
		a.sawBefore(ctx, el, t.U, t.T)
		return a.typeFocused(ctx, el, t, args.Text, args.Clear)
	}
}

// typeInto types into a resolved element.
func (a *act) typeInto(ctx context.Context, el *elem, text string, clear bool) error {
	var before typing
	if err := a.callEl(ctx, el, focusTypingJS, &before, a.typingOpts(clear)); err != nil {
		return err
	}
	return a.typeFocused(ctx, el, before, text, clear)
}

// typeFocused types at the caret of a focused field and checks its value.
func (a *act) typeFocused(ctx context.Context, el *elem, before typing, text string, clear bool) error {
	a.settle()
	el.desc = cmpOr(before.Desc, el.desc)
	if err := a.insert(ctx, text, clear, before.Multiline); err != nil {
		return a.done(err, el.desc, "typed into "+el.desc)
	}
	var after typed
	obj := el.obj
	if obj == "" {
		obj = el.wrap
	}
	if err := callValue(ctx, el.s, jsCall{fn: valueStateJS, object: obj}, &after); err != nil {
		return err
	}
	return a.checkTyped(ctx, el, before, after, text, clear)
}

// typed is the value read back after typing, with url and title.
type typed struct {
	V *string `json:"v"`
	U string  `json:"u"`
	T string  `json:"t"`
}

// checkTyped reports what typing did: the value must have changed.
func (a *act) checkTyped(ctx context.Context, el *elem, before typing, after typed, text string, clear bool) error {
	if main, _ := a.isMainWorld(ctx, el); main {
		a.after = &pageState{URL: after.U, Title: after.T}
	}
	was, now := deref(before.Before), deref(after.V)
	want := was + text
	if clear {
		want = text
	}
	if now == was && want != was {
		return &tools.Error{Code: CodeNotApplied, Retryable: true,
			Message: fmt.Sprintf("typed into %s but its value did not change (the page rejected the input, or moved focus); check it with get_value or observe snapshot", el.desc)}
	}
	if before.Editor && !clear {
		want = now // an editor inserts at its own caret: the text arrived when it shows it
		if !landed(now, text) {
			return &tools.Error{Code: CodeNotApplied, Retryable: true,
				Message: fmt.Sprintf("typed into %s but its text does not show what was typed (now %q); check it with get_value or observe snapshot", el.desc, clip(now, 100))}
		}
	}
	shown := strconv.Quote(clip(text, 60))
	if before.Secret {
		shown = "(secret)"
	}
	msg := fmt.Sprintf("typed %s into %s", shown, el.desc)
	if clear {
		msg = fmt.Sprintf("replaced the content of %s with %s", el.desc, shown)
	}
	if now != want && !before.Secret {
		msg += fmt.Sprintf("; its value is now %q (the page reformatted it)", clip(now, 100))
	}
	return a.done(nil, el.desc, msg)
}

// landed reports whether an editor's text shows every typed line (an
// editor may indent a new line or close a bracket, so each line is looked
// for apart, spaces collapsed).
func landed(now, text string) bool {
	collapse := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	have := collapse(now)
	for _, l := range strings.Split(text, "\n") {
		if l = collapse(l); l != "" && !strings.Contains(have, l) {
			return false
		}
	}
	return true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// insert types text at the caret: Input.insertText for runs of text, and
// Enter for each newline in a one-line field. With clear and no text the
// selection is deleted with Backspace.
func (a *act) insert(ctx context.Context, text string, clear, multiline bool) error {
	if text == "" {
		if clear {
			return a.press(ctx, Chord{Key: keys().named["Backspace"]})
		}
		return nil
	}
	lines := []string{text}
	if !multiline {
		lines = strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	}
	for i, l := range lines {
		if i > 0 {
			if err := a.press(ctx, Chord{Key: keys().named["Enter"]}); err != nil {
				return err
			}
		}
		if l == "" {
			continue
		}
		err := a.blocking(ctx, func(ctx context.Context) error {
			_, err := cdproto.Call(ctx, a.s, input.InsertText, input.InsertTextParams{Text: l})
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// KeyArgs are key_press's arguments: keys, and optionally the element to
// focus first.
type KeyArgs struct {
	Target
	Keys string
}

// KeyPress presses a key or chord (or several, space-separated) with
// trusted key events, on the focused element or on the target after
// focusing it.
func (e *Engine) KeyPress(ctx context.Context, tab int, args KeyArgs) (*Result, error) {
	return e.run(ctx, tab, "key_press", runOpts{probe: true}, func(ctx context.Context, a *act) error { return a.doKeys(ctx, args) })
}

func (a *act) doKeys(ctx context.Context, args KeyArgs) error {
	chords, err := ParseKeys(args.Keys)
	if err != nil {
		return invalid("keys: %v", err)
	}
	on := ""
	if !args.isEmpty() {
		el, err := a.resolve(ctx, args.Target, true)
		if err != nil {
			return err
		}
		if _, err := a.prepare(ctx, el, false); err != nil {
			return err
		}
		a.settle()
		if _, err := cdproto.Call(ctx, el.s, dom.Focus, dom.FocusParams{BackendNodeID: el.backend}); err != nil {
			return fmt.Errorf("focusing %s: %w", el.desc, err)
		}
		on = " on " + el.desc
		a.res.Target = el.desc
	}
	a.settle()
	names := make([]string, 0, len(chords))
	for _, c := range chords {
		names = append(names, c.String())
		if err := a.press(ctx, c); err != nil {
			return a.done(err, a.res.Target, "pressed "+strings.Join(names, " ")+on)
		}
	}
	return a.done(nil, a.res.Target, "pressed "+strings.Join(names, " ")+on)
}

var modOrder = []int{ModCtrl, ModAlt, ModMeta, ModShift}

// press sends one chord: modifier keys down, the key down and up, the
// modifiers up, with the modifier bits each event carries.
func (a *act) press(ctx context.Context, c Chord) error {
	send := func(p input.DispatchKeyEventParams) error {
		return a.blocking(ctx, func(ctx context.Context) error {
			_, err := cdproto.Call(ctx, a.s, input.DispatchKeyEvent, p)
			return err
		})
	}
	mods := 0
	var held []Key
	for _, bit := range modOrder {
		k := ModifierKey(bit)
		if c.Mods&bit == 0 && c.Key.Key != k.Key {
			continue
		}
		mods |= bit
		if k.Key == c.Key.Key {
			continue // the modifier is the key itself: pressed below
		}
		held = append(held, k)
		if err := send(keyEvent(input.DispatchKeyEventTypeRawKeyDown, k, k.Key, "", mods)); err != nil {
			return err
		}
	}
	key, text := c.Typed()
	down := keyEvent(input.DispatchKeyEventTypeRawKeyDown, c.Key, key, text, mods)
	if text != "" {
		down.Type = input.DispatchKeyEventTypeKeyDown
	}
	down.Commands = c.Commands()
	if err := send(down); err != nil {
		return err
	}
	if _, isMod := modifierKeys[c.Key.Key]; isMod {
		for _, bit := range modOrder {
			if ModifierKey(bit).Key == c.Key.Key {
				mods &^= bit
			}
		}
	}
	if err := send(keyEvent(input.DispatchKeyEventTypeKeyUp, c.Key, key, "", mods)); err != nil {
		return err
	}
	for i := len(held) - 1; i >= 0; i-- {
		for _, bit := range modOrder {
			if ModifierKey(bit).Key == held[i].Key {
				mods &^= bit
			}
		}
		if err := send(keyEvent(input.DispatchKeyEventTypeKeyUp, held[i], held[i].Key, "", mods)); err != nil {
			return err
		}
	}
	return nil
}

func keyEvent(t input.DispatchKeyEventType, k Key, key, text string, mods int) input.DispatchKeyEventParams {
	return input.DispatchKeyEventParams{Type: t, Modifiers: int64(mods), Key: key, Code: k.Code, Text: text, UnmodifiedText: text,
		WindowsVirtualKeyCode: k.KeyCode, NativeVirtualKeyCode: k.KeyCode, Location: k.Location}
}
