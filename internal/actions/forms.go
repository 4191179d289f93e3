package actions

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// SelectArgs are select's arguments.
type SelectArgs struct {
	Target
	Value string // an option's value or its label
}

const (
	selectJS     = `function (v) { return globalThis.__gasolineActions.selectOption(this, v) }`
	optionJS     = `function (v) { return globalThis.__gasolineActions.option(v) }`
	labelJS      = `function () { return this.labels && this.labels[0] || null }`
	checkStateJS = `function () { return globalThis.__gasolineActions.prepare(this, {}) }`
)

// Select chooses an option: on a native <select> by value or label (the
// page sees input and change events); on a custom listbox by clicking it
// open and clicking the option with that text.
func (e *Engine) Select(ctx context.Context, tab int, args SelectArgs) (*Result, error) {
	return e.run(ctx, tab, "select", runOpts{probe: true}, func(ctx context.Context, a *act) error { return a.doSelect(ctx, args) })
}

func (a *act) doSelect(ctx context.Context, args SelectArgs) error {
	el, err := a.resolve(ctx, args.Target, true)
	if err != nil {
		return err
	}
	if _, err := a.prepare(ctx, el, false); err != nil {
		return err
	}
	return a.selectIn(ctx, el, args)
}

// selectIn chooses an option in a resolved element.
func (a *act) selectIn(ctx context.Context, el *elem, args SelectArgs) error {
	a.settle()
	var r *struct {
		Value, Label string
		Selected     bool
	}
	if err := a.callEl(ctx, el, selectJS, &r, args.Value); err != nil {
		return err
	}
	if r != nil {
		if !r.Selected {
			return errorf(CodeNotApplied, "chose %q in %s but the page changed the selection back", r.Label, el.desc)
		}
		a.res.Value = map[string]string{"value": r.Value, "label": r.Label}
		return a.done(nil, el.desc, fmt.Sprintf("selected %q in %s", r.Label, el.desc))
	}
	// A custom listbox: open it, then click the option.
	if err := a.clickElem(ctx, el); err != nil {
		return a.done(err, el.desc, "opened "+el.desc)
	}
	opt, err := a.handleOf(ctx, el, optionJS, args.Value)
	if err != nil {
		return err
	}
	if opt == nil {
		return errorf(CodeNoOption, "no option %q appeared after opening %s", args.Value, el.desc)
	}
	if err := a.clickElem(ctx, opt); err != nil {
		return a.done(err, el.desc, "chose "+opt.desc)
	}
	return a.done(nil, el.desc, fmt.Sprintf("selected %s in %s", opt.desc, el.desc))
}

// clickElem clicks a resolved element after the usual checks (confirmed
// in a frame: clickTarget).
func (a *act) clickElem(ctx context.Context, el *elem) error {
	_, err := a.clickTarget(ctx, func() (aimed, error) {
		p, err := a.prepare(ctx, el, true)
		if err != nil {
			return aimed{}, err
		}
		return a.aimElem(ctx, el, p, true)
	}, mouse{})
	return err
}

// CheckArgs are check's arguments.
type CheckArgs struct {
	Target
	Checked *bool // the state wanted; nil means checked
}

// Check sets a checkbox, radio button or switch to a state: it clicks only
// when the state differs (the element's label when the input itself is
// hidden), then reads the state back.
func (e *Engine) Check(ctx context.Context, tab int, args CheckArgs) (*Result, error) {
	return e.run(ctx, tab, "check", runOpts{probe: true}, func(ctx context.Context, a *act) error {
		want := args.Checked == nil || *args.Checked
		el, err := a.resolve(ctx, args.Target, true)
		if err != nil {
			return err
		}
		return a.doCheck(ctx, el, want)
	})
}

func (a *act) doCheck(ctx context.Context, el *elem, want bool) error {
	p, err := a.prepare(ctx, el, true)
	if err != nil {
		return err
	}
	state := map[bool]string{true: "checked", false: "unchecked"}
	switch {
	case p.Checked == nil:
		return errorf(CodeNotEditable, "%s is not a checkbox, radio button or switch; click it instead", el.desc)
	case *p.Checked == want:
		return a.done(nil, el.desc, fmt.Sprintf("%s was already %s", el.desc, state[want]))
	case p.Type == "radio" && !want:
		return invalid("%s is a radio button: it unchecks when another option of its group is checked; check that one instead", el.desc)
	case p.Disabled:
		return errorf(CodeDisabled, "%s is disabled", el.desc)
	}
	a.settle()
	target := el
	if !p.Visible && p.Label {
		if target, err = a.handleOf(ctx, el, labelJS); err != nil {
			return err
		}
		if target == nil {
			return notVisible(el)
		}
		target.desc = el.desc + "'s label"
	}
	if err := a.clickElem(ctx, target); err != nil {
		return a.done(err, el.desc, "clicked "+el.desc)
	}
	var after prep
	if err := a.callEl(ctx, el, checkStateJS, &after); err != nil {
		return err
	}
	if after.Checked == nil || *after.Checked != want {
		return &tools.Error{Code: CodeNotApplied, Retryable: true,
			Message: fmt.Sprintf("clicked %s but it is still %s (the page may handle clicks elsewhere); check the snapshot", el.desc, state[!want])}
	}
	return a.done(nil, el.desc, fmt.Sprintf("%s %s", map[bool]string{true: "checked", false: "unchecked"}[want], el.desc))
}

// Field is one fill_form field: a target and the value to give it (text
// for a text field, an option for a select, true/false for a checkbox).
type Field struct {
	Target
	Value any `json:"value"`
}

// FillArgs are fill_form's arguments.
type FillArgs struct {
	Fields []Field
	Submit bool // submit the form of the last field afterwards
}

const (
	submitButtonJS = `function () {
  const f = this.form || this.closest('form');
  return f && f.querySelector('button[type=submit], input[type=submit], input[type=image], button:not([type])') || null;
}`
	requestSubmitJS = `function () {
  const f = this.form || this.closest('form');
  if (!f) return false;
  f.requestSubmit();
  return true;
}`
)

// FillForm fills fields in order, each as its kind asks (type with clear,
// select, check), stops at the first failure, and optionally submits.
func (e *Engine) FillForm(ctx context.Context, tab int, args FillArgs) (*Result, error) {
	return e.run(ctx, tab, "fill_form", runOpts{probe: true}, func(ctx context.Context, a *act) error { return a.doFill(ctx, args) })
}

func (a *act) doFill(ctx context.Context, args FillArgs) error {
	if len(args.Fields) == 0 {
		return invalid("fields is empty: give [{ref|selector, value}, …]")
	}
	var last *elem
	for i, f := range args.Fields {
		step, el, err := a.fillOne(ctx, f)
		a.res.Steps = append(a.res.Steps, step)
		if err != nil {
			te, _ := toolErr(err).(*tools.Error)
			if te == nil {
				te = &tools.Error{Code: tools.CodeInternal, Message: err.Error()}
			}
			a.res.Steps[i].OK, a.res.Steps[i].Error, a.res.Steps[i].Message = false, te, te.Message
			return &tools.Error{Code: te.Code, Retryable: te.Retryable, NextAction: te.NextAction, Details: a.res.Steps,
				Message: fmt.Sprintf("field %d of %d (%s) failed: %s; the fields before it were filled", i+1, len(args.Fields), f.Target, te.Message)}
		}
		last = el
	}
	msg := fmt.Sprintf("filled %d fields", len(args.Fields))
	if args.Submit {
		btn, err := a.handleOf(ctx, last, submitButtonJS)
		if err != nil {
			return err
		}
		if btn != nil {
			if err := a.clickElem(ctx, btn); err != nil {
				return a.done(err, "", msg+" and clicked "+btn.desc)
			}
			return a.done(nil, "", msg+" and clicked "+btn.desc)
		}
		var ok bool
		err = a.blocking(ctx, func(ctx context.Context) error { return a.callEl(ctx, last, requestSubmitJS, &ok) })
		if err == nil && !ok {
			return errorf(CodeNotFound, "%s; the last field is in no form to submit: click its submit button", msg)
		}
		return a.done(err, "", msg+" and submitted the form")
	}
	return a.done(nil, "", msg)
}

func (a *act) fillOne(ctx context.Context, f Field) (StepResult, *elem, error) {
	step := StepResult{What: "fill", OK: true}
	el, err := a.resolve(ctx, f.Target, true)
	if err != nil {
		return step, nil, err
	}
	step.Target = el.desc
	p, err := a.prepare(ctx, el, false)
	if err != nil {
		return step, el, err
	}
	v := valueString(f.Value)
	sub := &Result{}
	saved := a.res
	a.res = sub
	defer func() { a.res = saved }()
	switch {
	case p.Type == "file":
		err = invalid("%s is a file input: use upload", el.desc)
	case p.Tag == "select":
		err = a.selectIn(ctx, el, SelectArgs{Value: v})
	case p.Type == "radio" && !isBool(v): // a radio group by the option's value or label
		var opt *elem
		if opt, err = a.handleOf(ctx, el, radioJS, v); err == nil && opt == nil {
			err = errorf(CodeNoOption, "the radio group of %s has no option %q (by value or label)", el.desc, v)
		}
		if err == nil {
			err = a.doCheck(ctx, opt, true)
		}
	case p.Checked != nil:
		var want bool
		if want, err = parseBool(v); err == nil {
			err = a.doCheck(ctx, el, want)
		}
	default:
		err = a.typeInto(ctx, el, v, true)
	}
	step.Message = sub.Message
	return step, el, err
}

func valueString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

// radioJS finds the radio of this one's group with a value or label.
const radioJS = `function (v) {
  const G = globalThis.__gasolineActions;
  const scope = this.form || this.getRootNode();
  const group = [...scope.querySelectorAll('input[type=radio]')].filter((r) => r.name === this.name);
  const w = G.norm(v).toLowerCase();
  return group.find((r) => r.value === v) || group.find((r) => G.norm(G.labelOf(r)).toLowerCase() === w) || null;
}`

func isBool(v string) bool {
	_, err := parseBool(v)
	return err == nil
}

func parseBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "on", "yes", "checked", "1", "":
		return true, nil
	case "false", "off", "no", "unchecked", "0":
		return false, nil
	}
	return false, invalid("a checkbox or radio value must be true or false, got %q", v)
}
