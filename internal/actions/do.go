package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Args are an interact call's arguments: the typed arguments of the tool
// surface (tools.Args), decoded once by the dispatcher; each mode reads
// the ones its definition declares.
type Args = tools.Args

// Step is one step of a batch.
type Step = tools.Step

func targetOf(a *Args) Target {
	return Target{Ref: a.Ref, Selector: a.Selector, X: a.X, Y: a.Y, Frame: a.Frame}
}

// runner runs one mode with its arguments.
type runner func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error)

// runners are the engine's modes: the interact modes whose definition
// says they may run as a batch step (tools.Mode.Step), and batch itself.
// TestRunnersMatchTheTable keeps the two in step.
var runners = map[string]runner{
	"click": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Click(ctx, tab, ClickArgs{Target: targetOf(a), Button: a.Button, ClickCount: a.ClickCount, Modifiers: a.Modifiers})
	},
	"hover": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Hover(ctx, tab, HoverArgs{targetOf(a)})
	},
	"focus": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Focus(ctx, tab, FocusArgs{targetOf(a)})
	},
	"scroll_to": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.ScrollTo(ctx, tab, ScrollArgs{targetOf(a)})
	},
	"type": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Type(ctx, tab, TypeArgs{Target: targetOf(a), Text: a.Text, Clear: a.Clear})
	},
	"key_press": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.KeyPress(ctx, tab, KeyArgs{Target: targetOf(a), Keys: a.Keys})
	},
	"select": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Select(ctx, tab, SelectArgs{Target: targetOf(a), Value: a.Value})
	},
	"check": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Check(ctx, tab, CheckArgs{Target: targetOf(a), Checked: a.Checked})
	},
	"fill_form": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		fields := make([]Field, len(a.Fields))
		for i, f := range a.Fields {
			fields[i] = Field{Target: Target{Ref: f.Ref, Selector: f.Selector, X: f.X, Y: f.Y, Frame: f.Frame}, Value: f.Value}
		}
		return e.FillForm(ctx, tab, FillArgs{Fields: fields, Submit: a.Submit})
	},
	"upload": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		if len(a.FileContents) > 0 || len(a.Files) == 0 {
			return e.UploadContents(ctx, tab, targetOf(a), a.Files, a.FileContents) // upload_content.go
		}
		return e.Upload(ctx, tab, UploadArgs{Target: targetOf(a), Files: a.Files})
	},
	"drag": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		to := Target{Ref: a.ToRef, Selector: a.ToSelector, X: a.ToX, Y: a.ToY, Frame: a.Frame}
		return e.Drag(ctx, tab, DragArgs{From: targetOf(a), To: to})
	},
	"execute_js": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.ExecuteJS(ctx, tab, EvalArgs{Script: a.Script, Frame: a.Frame})
	},
	"handle_dialog": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		if a.Accept == nil {
			return nil, invalid("handle_dialog needs accept: true to accept, false to dismiss")
		}
		return e.HandleDialog(ctx, tab, DialogArgs{Accept: *a.Accept, PromptText: a.PromptText})
	},
	"wait_for": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		w := WaitArgs{Selector: a.Selector, State: a.State, Text: a.Text, URL: a.URL, NetworkIdle: a.NetworkIdle,
			Frame: a.Frame, Timeout: timeout(a), IdleMS: a.IdleMS}
		if w.State == "network_idle" {
			w.State, w.NetworkIdle = "", true
		}
		return e.WaitFor(ctx, tab, w)
	},
	"wait_for_stable": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.WaitForStable(ctx, tab, StableArgs{QuietMS: a.IdleMS, Timeout: timeout(a)})
	},
	"get_text": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.GetText(ctx, tab, ReadArgs{Target: targetOf(a)})
	},
	"get_value": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.GetValue(ctx, tab, ReadArgs{Target: targetOf(a)})
	},
	"get_attribute": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.GetAttribute(ctx, tab, ReadArgs{Target: targetOf(a), Name: a.Name})
	},
	"query": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Query(ctx, tab, QueryArgs{Selector: a.Selector, Frame: a.Frame, Limit: a.Limit})
	},
	"explore_page": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.ExplorePage(ctx, tab, ExploreArgs{Limit: a.Limit})
	},
	"back": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Back(ctx, tab, HistoryArgs{WaitUntil: a.WaitUntil})
	},
	"forward": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Forward(ctx, tab, HistoryArgs{WaitUntil: a.WaitUntil})
	},
	"refresh": func(e *Engine, ctx context.Context, tab int, a *Args) (*Result, error) {
		return e.Refresh(ctx, tab, HistoryArgs{WaitUntil: a.WaitUntil})
	},
}

// timeout is a step's own timeout_ms (wait_for), or zero.
func timeout(a *Args) time.Duration {
	if a.TimeoutMS == nil {
		return 0
	}
	return time.Duration(*a.TimeoutMS) * time.Millisecond
}

// Runs reports whether the engine runs the interact mode what.
func Runs(what string) bool { _, ok := runners[what]; return ok || what == "batch" }

// Do runs one interact mode by name with its arguments as JSON, validated
// as a call of the mode (tests and tools that have no dispatcher).
func (e *Engine) Do(ctx context.Context, tab int, what string, raw json.RawMessage) (*Result, error) {
	obj := map[string]json.RawMessage{}
	if len(raw) > 0 && json.Unmarshal(raw, &obj) != nil {
		return nil, invalid("arguments of %s must be a JSON object", what)
	}
	obj["what"], _ = json.Marshal(what)
	full, _ := json.Marshal(obj)
	c, te := tools.Parse("interact", full)
	if te != nil {
		return nil, te
	}
	return e.Run(ctx, tab, what, &c.Args)
}

// Run runs one interact mode by name with its decoded arguments. It is
// the dispatcher's single entry point (the arguments are decoded once, by
// the caller); the typed methods (Click, Type, …) are the same actions.
func (e *Engine) Run(ctx context.Context, tab int, what string, args *Args) (*Result, error) {
	if what == "batch" {
		return e.Batch(ctx, tab, args.Steps)
	}
	return e.dispatch(ctx, tab, what, args)
}

func (e *Engine) dispatch(ctx context.Context, tab int, what string, a *Args) (*Result, error) {
	if run, ok := runners[what]; ok {
		return run(e, ctx, tab, a)
	}
	return nil, &tools.Error{Code: tools.CodeUnknownMode, Message: fmt.Sprintf("interact %s is not an action mode", what)}
}

// MaxSteps bounds a batch.
const MaxSteps = 50

// Batch runs steps ({what, …args}) in order on the tab, holding the tab
// for the whole batch (no other caller's action runs between two steps),
// stops at the first failure, and reports each step. After a step that
// opens a dialog, only handle_dialog can follow.
func (e *Engine) Batch(ctx context.Context, tab int, steps []Step) (*Result, error) {
	if len(steps) == 0 || len(steps) > MaxSteps {
		return nil, invalid("steps must hold 1 to %d steps, got %d", MaxSteps, len(steps))
	}
	start := time.Now()
	if held, _ := ctx.Value(heldKey{}).(int); held != tab {
		unlock, err := e.Lock(ctx, tab)
		if err != nil {
			return nil, err
		}
		defer unlock()
		ctx = context.WithValue(ctx, heldKey{}, tab)
	}
	res := &Result{Action: "batch", TabID: tab}
	for i := range steps {
		what := steps[i].What
		if _, ok := runners[what]; !ok {
			return nil, invalid("step %d: %q is not an interact action mode", i+1, what)
		}
		r, err := e.dispatch(ctx, tab, what, &steps[i].Args)
		step := StepResult{What: what, OK: err == nil}
		if err != nil {
			var te *tools.Error
			if !errors.As(err, &te) {
				te = &tools.Error{Code: tools.CodeInternal, Message: err.Error()}
			}
			step.Error, step.Message = te, te.Message
			res.Steps = append(res.Steps, step)
			res.Message = fmt.Sprintf("batch stopped at step %d of %d (%s)", i+1, len(steps), what)
			res.ElapsedMS = ms(time.Since(start))
			return res, &tools.Error{Code: te.Code, Retryable: te.Retryable, NextAction: te.NextAction, Details: res,
				Message: fmt.Sprintf("step %d of %d (%s) failed: %s; the steps before it ran", i+1, len(steps), what, te.Message)}
		}
		step.Target, step.Message, step.Value = r.Target, r.Message, r.Value
		if !r.Changes.empty() {
			step.Message += "; " + r.Changes.text()
		}
		res.Steps = append(res.Steps, step)
		mergeChanges(&res.Changes, r.Changes)
	}
	res.Message = fmt.Sprintf("ran %d steps", len(steps))
	res.ElapsedMS = ms(time.Since(start))
	return res, nil
}

// mergeChanges folds one step's changes into the batch's.
func mergeChanges(into *Changes, c Changes) {
	if c.URL != nil {
		if into.URL == nil {
			into.URL = &Delta{From: c.URL.From}
		}
		into.URL.To = c.URL.To
	}
	if c.Title != nil {
		if into.Title == nil {
			into.Title = &Delta{From: c.Title.From}
		}
		into.Title.To = c.Title.To
	}
	into.Navigated = into.Navigated || c.Navigated
	into.Dialogs = append(into.Dialogs, c.Dialogs...)
	into.Errors = append(into.Errors, c.Errors...)
	into.FailedRequests = append(into.FailedRequests, c.FailedRequests...)
	into.InFlight = c.InFlight
	into.More += c.More
	if c.Generation != nil {
		if into.Generation == nil {
			into.Generation = &[2]int{c.Generation[0], c.Generation[1]}
		}
		into.Generation[1] = c.Generation[1]
	}
}

// Describe names what a target points at as a person sees it, for an
// approval prompt, without acting on it: its role and the text drawn in
// it, and its accessible name too when that says something else —
// `button showing "Transfer $5,000" (labelled "Close this dialog")`. The
// element is found live in the tab's queue, a ref as a selector; a ref
// whose element cannot be reached is named as its snapshot recorded it.
func (e *Engine) Describe(ctx context.Context, tab int, t Target) (string, error) {
	if t.isPoint() {
		return t.String(), nil
	}
	s, err := e.See(ctx, tab, t, "")
	return s.Desc, err
}

// What the approval gate asks of a target's effect (See's how).
const (
	HowClick  = "click"  // a click, or a key that activates the element
	HowEnter  = "enter"  // Enter: activates it, and in a field submits its form
	HowSubmit = "submit" // fill_form's submit: the form of the field
)

// Seen is an element as a person sees it and what activating it does.
type Seen struct {
	Desc   string `json:"d"`
	Effect Effect `json:"e"`
}

// Effect is what activating an element does, as the page declares it (a
// form and where it submits to, a link and its address); its own script
// is not seen.
type Effect struct {
	Found    bool   `json:"found"`              // an element was there
	Frame    bool   `json:"frame,omitempty"`    // it is a frame: what happens inside is not seen
	Submits  bool   `json:"submits,omitempty"`  // it submits a form
	Form     string `json:"form,omitempty"`     // the form's name, if it has one
	Action   string `json:"action,omitempty"`   // the address it submits to
	Href     string `json:"href,omitempty"`     // a link's address
	Download bool   `json:"download,omitempty"` // the link downloads
}

// seesJS is page.js sees: the element, its words and its effect.
const seesJS = `function (how, at) { return globalThis.__gasolineActions.sees(this && this.nodeType ? this : null, how, at) }`

// See names a target as a person sees it (Describe) and, with how, says
// what activating it does — one round trip in the tab's queue. An empty
// target is the element keys go to (the focused one; none when the page
// body has focus); a point, the element drawn there in the main frame.
func (e *Engine) See(ctx context.Context, tab int, t Target, how string) (Seen, error) {
	var out Seen
	_, err := e.run(ctx, tab, "describe", runOpts{}, func(ctx context.Context, a *act) error {
		return a.see(ctx, t, how, &out)
	})
	if err != nil && t.Ref != "" {
		if loc, lerr := e.cfg.Snapshots.Locate(tab, t.Ref); lerr == nil {
			return Seen{Desc: loc.Desc}, err
		}
	}
	return out, err
}

// findSeesJS finds a selector's element (not strict: a prompt names the
// element the action would take) and names it: one round trip.
const findSeesJS = `function (q, how) { const G = globalThis.__gasolineActions; return G.sees(G.find(q, false), how) }`

// seeSelector is see for a selector, found and named in one round trip in
// its frame's world; a world replaced meanwhile is recreated once.
func (a *act) seeSelector(ctx context.Context, t Target, how string, out *Seen) error {
	for try := 0; ; try++ {
		w, err := a.selectorWorld(ctx, t)
		if err == nil {
			err = callValue(ctx, w.s, jsCall{fn: findSeesJS, context: w.ec, args: []any{w.q, how}}, out)
		}
		if errors.Is(err, errWorldGone) && try == 0 {
			a.forgetAll()
			continue
		}
		return err
	}
}

func (a *act) see(ctx context.Context, t Target, how string, out *Seen) error {
	switch {
	case t.Ref != "":
		_, o, err := a.refCall(ctx, t.Ref, `(el, how) => globalThis.__gasolineActions.sees(el, how)`, byValue, how)
		if err != nil {
			return err
		}
		return decode(o, out)
	case t.Selector != "":
		return a.seeSelector(ctx, t, how, out)
	}
	ec, _, err := a.world(ctx, "", "")
	if err != nil {
		return err
	}
	var at any
	if t.isPoint() {
		at = []float64{*t.X, *t.Y}
	}
	return callValue(ctx, a.s, jsCall{fn: withHelpers(seesJS), context: ec, args: []any{how, at}}, out)
}
