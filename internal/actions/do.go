package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Args are an interact call's arguments under their MCP names (TOOLS.md);
// each mode reads the ones it declares.
type Args struct {
	Ref        string   `json:"ref,omitempty"`
	Selector   string   `json:"selector,omitempty"`
	X          *float64 `json:"x,omitempty"`
	Y          *float64 `json:"y,omitempty"`
	Frame      string   `json:"frame,omitempty"`
	Button     string   `json:"button,omitempty"`
	ClickCount int      `json:"click_count,omitempty"`
	Modifiers  string   `json:"modifiers,omitempty"`
	Text       string   `json:"text,omitempty"`
	Clear      bool     `json:"clear,omitempty"`
	Value      any      `json:"value,omitempty"`
	Checked    *bool    `json:"checked,omitempty"`
	Keys       string   `json:"keys,omitempty"`
	ToRef      string   `json:"to_ref,omitempty"`
	ToSelector string   `json:"to_selector,omitempty"`
	ToX        *float64 `json:"to_x,omitempty"`
	ToY        *float64 `json:"to_y,omitempty"`
	Files      []string `json:"files,omitempty"`
	// FileContents are upload's files by content (upload_content.go).
	FileContents []FileContent `json:"file_contents,omitempty"`
	Script       string        `json:"script,omitempty"`
	Accept       *bool         `json:"accept,omitempty"`
	PromptText   string        `json:"prompt_text,omitempty"`
	State        string        `json:"state,omitempty"`
	URL          string        `json:"url,omitempty"`
	// NetworkIdle (or state "network_idle") makes wait_for wait for no
	// request in flight.
	NetworkIdle bool    `json:"network_idle,omitempty"`
	IdleMS      int     `json:"idle_ms,omitempty"`
	TimeoutMS   int     `json:"timeout_ms,omitempty"`
	Name        string  `json:"name,omitempty"`
	Limit       int     `json:"limit,omitempty"`
	Fields      []Field `json:"fields,omitempty"`
	Submit      bool    `json:"submit,omitempty"`
	Steps       []Step  `json:"steps,omitempty"`
	WaitUntil   string  `json:"wait_until,omitempty"`
}

// Step is one step of a batch: its mode and its arguments, decoded with
// the batch's (what, or its older alias action).
type Step struct {
	What string
	Args Args
}

// UnmarshalJSON reads {what|action, …args}.
func (s *Step) UnmarshalJSON(b []byte) error {
	var head struct {
		What   string `json:"what"`
		Action string `json:"action"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	s.What = cmpOr(head.What, head.Action)
	return json.Unmarshal(b, &s.Args)
}

// MarshalJSON writes the step back as {what, …args}.
func (s Step) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(s.Args)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["what"] = s.What
	return json.Marshal(m)
}

func (a Args) target() Target {
	return Target{Ref: a.Ref, Selector: a.Selector, X: a.X, Y: a.Y, Frame: a.Frame}
}

// Modes lists the interact modes Do runs, sorted.
var Modes = []string{"back", "batch", "check", "click", "drag", "execute_js", "explore_page", "fill_form", "focus",
	"forward", "get_attribute", "get_text", "get_value", "handle_dialog", "hover", "key_press", "query", "refresh",
	"scroll_to", "select", "type", "upload", "wait_for", "wait_for_stable"}

// Do runs one interact mode by name with its arguments as JSON.
func (e *Engine) Do(ctx context.Context, tab int, what string, raw json.RawMessage) (*Result, error) {
	var args Args
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, invalid("arguments of %s: %v", what, err)
		}
	}
	return e.Run(ctx, tab, what, &args)
}

// Run runs one interact mode by name with its decoded arguments. It is
// the dispatcher's single entry point (the arguments are decoded once, by
// the caller); the typed methods (Click, Type, …) are the same actions.
func (e *Engine) Run(ctx context.Context, tab int, what string, args *Args) (*Result, error) {
	if what == "batch" {
		return e.Batch(ctx, tab, args.Steps)
	}
	return e.dispatch(ctx, tab, what, *args)
}

func (e *Engine) dispatch(ctx context.Context, tab int, what string, a Args) (*Result, error) {
	t := a.target()
	switch what {
	case "click":
		return e.Click(ctx, tab, ClickArgs{Target: t, Button: a.Button, ClickCount: a.ClickCount, Modifiers: a.Modifiers})
	case "hover":
		return e.Hover(ctx, tab, HoverArgs{t})
	case "focus":
		return e.Focus(ctx, tab, FocusArgs{t})
	case "scroll_to":
		return e.ScrollTo(ctx, tab, ScrollArgs{t})
	case "type":
		return e.Type(ctx, tab, TypeArgs{Target: t, Text: a.Text, Clear: a.Clear})
	case "key_press":
		return e.KeyPress(ctx, tab, KeyArgs{Target: t, Keys: a.Keys})
	case "select":
		return e.Select(ctx, tab, SelectArgs{Target: t, Value: valueString(a.Value)})
	case "check":
		return e.Check(ctx, tab, CheckArgs{Target: t, Checked: a.Checked})
	case "fill_form":
		return e.FillForm(ctx, tab, FillArgs{Fields: a.Fields, Submit: a.Submit})
	case "upload":
		if len(a.FileContents) > 0 || len(a.Files) == 0 {
			return e.UploadContents(ctx, tab, t, a.Files, a.FileContents) // upload_content.go
		}
		return e.Upload(ctx, tab, UploadArgs{Target: t, Files: a.Files})
	case "drag":
		to := Target{Ref: a.ToRef, Selector: a.ToSelector, X: a.ToX, Y: a.ToY, Frame: a.Frame}
		return e.Drag(ctx, tab, DragArgs{From: t, To: to})
	case "execute_js":
		return e.ExecuteJS(ctx, tab, EvalArgs{Script: a.Script, Frame: a.Frame})
	case "handle_dialog":
		if a.Accept == nil {
			return nil, invalid("handle_dialog needs accept: true to accept, false to dismiss")
		}
		return e.HandleDialog(ctx, tab, DialogArgs{Accept: *a.Accept, PromptText: a.PromptText})
	case "wait_for":
		w := WaitArgs{Selector: a.Selector, State: a.State, Text: a.Text, URL: a.URL, NetworkIdle: a.NetworkIdle,
			Frame: a.Frame, Timeout: time.Duration(a.TimeoutMS) * time.Millisecond, IdleMS: a.IdleMS}
		if w.State == "network_idle" {
			w.State, w.NetworkIdle = "", true
		}
		return e.WaitFor(ctx, tab, w)
	case "wait_for_stable":
		return e.WaitForStable(ctx, tab, StableArgs{QuietMS: a.IdleMS, Timeout: time.Duration(a.TimeoutMS) * time.Millisecond})
	case "get_text":
		return e.GetText(ctx, tab, ReadArgs{Target: t})
	case "get_value":
		return e.GetValue(ctx, tab, ReadArgs{Target: t})
	case "get_attribute":
		return e.GetAttribute(ctx, tab, ReadArgs{Target: t, Name: a.Name})
	case "query":
		return e.Query(ctx, tab, QueryArgs{Selector: a.Selector, Frame: a.Frame, Limit: a.Limit})
	case "explore_page":
		return e.ExplorePage(ctx, tab, ExploreArgs{Limit: a.Limit})
	case "back":
		return e.Back(ctx, tab, HistoryArgs{WaitUntil: a.WaitUntil})
	case "forward":
		return e.Forward(ctx, tab, HistoryArgs{WaitUntil: a.WaitUntil})
	case "refresh":
		return e.Refresh(ctx, tab, HistoryArgs{WaitUntil: a.WaitUntil})
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
		if what == "batch" || !slices.Contains(Modes, what) {
			return nil, invalid("step %d: %q is not an interact action mode", i+1, what)
		}
		r, err := e.dispatch(ctx, tab, what, steps[i].Args)
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
	var desc string
	_, err := e.run(ctx, tab, "describe", runOpts{}, func(ctx context.Context, a *act) error {
		d, err := a.seen(ctx, t)
		desc = d
		return err
	})
	if err != nil && t.Ref != "" {
		if loc, lerr := e.cfg.Snapshots.Locate(tab, t.Ref); lerr == nil {
			return loc.Desc, nil
		}
	}
	return desc, err
}

// seenJS names an element as a person sees it (page.js seen).
const seenJS = `function () { return globalThis.__gasolineActions.seen(this) }`

// seen names the target's element as a person sees it.
func (a *act) seen(ctx context.Context, t Target) (string, error) {
	var o *runtime.RemoteObject
	var err error
	if t.Ref != "" {
		_, o, err = a.refCall(ctx, t.Ref, `(el) => globalThis.__gasolineActions.seen(el)`, byValue)
	} else {
		el, err := a.resolve(ctx, t, false)
		if err != nil {
			return "", err
		}
		var s string
		return s, a.callEl(ctx, el, seenJS, &s)
	}
	if err != nil {
		return "", err
	}
	var s string
	return s, decode(o, &s)
}
