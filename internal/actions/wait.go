package actions

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// DefaultWait bounds a wait that names no timeout.
const DefaultWait = 10 * time.Second

// WaitArgs are wait_for's arguments: exactly one condition.
type WaitArgs struct {
	Selector    string // with State: visible (default), hidden, attached, detached
	State       string
	Text        string // text present in the page
	URL         string // the main frame's url contains this, or matches it as a glob (see urlMatcher)
	NetworkIdle bool   // no request in flight for IdleMS
	Frame       string // scope Selector or Text to an iframe
	Timeout     time.Duration
	IdleMS      int // network idle window (default 500)
}

// WaitFor waits until a condition holds, bounded by Timeout (default
// DefaultWait) and ctx. Selector and text waits run in the page (one
// awaited call, woken by DOM mutations; they resume in the new document
// when the page navigates); url waits follow navigation events; network
// idle follows requests in flight. A condition that does not hold in time
// is a wait_timeout error.
func (e *Engine) WaitFor(ctx context.Context, tab int, args WaitArgs) (*Result, error) {
	return e.run(ctx, tab, "wait_for", runOpts{}, func(ctx context.Context, a *act) error { return a.doWait(ctx, args) })
}

const (
	waitSelectorJS = `function (q, state, t) { return globalThis.__gasolineActions.waitSelector(q, state, t) }`
	waitTextJS     = `function (text, t) { return globalThis.__gasolineActions.waitText(text, t) }`
)

func (a *act) doWait(ctx context.Context, args WaitArgs) error {
	n := 0
	for _, set := range []bool{args.Selector != "", args.Text != "", args.URL != "", args.NetworkIdle} {
		if set {
			n++
		}
	}
	if n != 1 {
		return invalid("wait_for needs exactly one of selector, text, url or network idle")
	}
	start := time.Now()
	ctx, cancel := waitBudget(ctx, args.Timeout)
	defer cancel()
	var what string
	var err error
	switch {
	case args.Selector != "":
		what, err = a.waitSelector(ctx, args)
	case args.Text != "":
		what = fmt.Sprintf("text %q is present", args.Text)
		err = a.waitInPage(ctx, args.Frame, waitTextJS, args.Text)
	case args.URL != "":
		what, err = a.waitURL(ctx, args.URL)
	default:
		what = "the network is idle"
		err = a.waitIdle(ctx, idleWindow(args.IdleMS))
	}
	took := time.Since(start).Round(time.Millisecond)
	if errors.Is(err, context.DeadlineExceeded) {
		return &tools.Error{Code: CodeWaitTimeout, Retryable: true,
			Message: fmt.Sprintf("waited %s but %s did not happen; check observe snapshot, or wait longer (timeout_ms)", took, strings.Replace(what, " is ", " became ", 1))}
	}
	if err != nil {
		return err
	}
	a.res.Message = fmt.Sprintf("%s (after %d ms)", what, took.Milliseconds())
	return nil
}

// waitBudget bounds a wait by its timeout and by ctx, keeping a margin of
// ctx for the answer.
func waitBudget(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = DefaultWait
	}
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl)-100*time.Millisecond)
	}
	return context.WithTimeout(ctx, max(timeout, 0))
}

func idleWindow(ms int) time.Duration {
	if ms <= 0 {
		return 500 * time.Millisecond
	}
	return time.Duration(ms) * time.Millisecond
}

func (a *act) waitSelector(ctx context.Context, args WaitArgs) (string, error) {
	sel, err := ParseSelector(args.Selector)
	if err != nil {
		return "", errorf(CodeInvalidTarget, "selector %q: %v", args.Selector, err)
	}
	state := args.State
	switch state {
	case "":
		state = "visible"
	case "visible", "hidden", "attached", "detached":
	default:
		return "", invalid("state must be visible, hidden, attached or detached, got %q", state)
	}
	what := fmt.Sprintf("%s is %s", args.Selector, state)
	return what, a.waitInPage(ctx, args.Frame, waitSelectorJS, query{Selector: sel, Text: args.Selector}, state)
}

// waitInPage runs a wait helper (its last argument is the time left) until
// it reports ok, starting over in the new document when the page
// navigates meanwhile.
func (a *act) waitInPage(ctx context.Context, frame, fn string, args ...any) error {
	for {
		left := time.Until(deadline(ctx))
		if left <= 0 {
			return context.DeadlineExceeded
		}
		sid, fid := "", cdproto.FrameID("")
		var err error
		if frame != "" {
			if sid, fid, err = a.frameOf(ctx, frame); err != nil {
				return err
			}
		}
		ec, _, err := a.world(ctx, sid, fid)
		if err == nil {
			var r struct{ OK bool }
			c := jsCall{fn: fn, context: ec, args: append(args, left.Milliseconds()), await: true}
			if err = callValue(ctx, a.e.session(a.tab, sid), c, &r); err == nil {
				if r.OK {
					return nil
				}
				return context.DeadlineExceeded
			}
		}
		if !errors.Is(err, errWorldGone) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return context.DeadlineExceeded
			}
			return err
		}
		a.forgetWorld(sid, "")
		if !a.w.next(ctx) { // the new document: wait for its navigation before retrying
			return context.DeadlineExceeded
		}
	}
}

func deadline(ctx context.Context) time.Time {
	dl, _ := ctx.Deadline()
	return dl
}

// waitURL waits until the main frame's url matches pattern: checked now
// and after every main-frame navigation event.
func (a *act) waitURL(ctx context.Context, pattern string) (string, error) {
	match := urlMatcher(pattern)
	what := fmt.Sprintf("the url matches %q", pattern)
	for {
		st, err := historyState(ctx, a.s)
		if err == nil && match(st.URL) {
			a.res.Value = st.URL
			return what + " (" + st.URL + ")", nil
		}
		if u := a.w.url; u != "" && match(u) {
			a.res.Value = u
			return what + " (" + u + ")", nil
		}
		if err != nil && !cdp.Navigating(err) {
			return what, err
		}
		if !a.w.next(ctx) {
			return what, context.DeadlineExceeded
		}
	}
}

// urlMatcher matches a url: a pattern with * is a glob (* spans any
// characters, slashes included) matched against the whole url when it
// starts with a scheme (https://…, *://…) and anywhere in it otherwise;
// a pattern without * is a substring.
func urlMatcher(p string) func(string) bool {
	if !strings.Contains(p, "*") {
		return func(u string) bool { return strings.Contains(u, p) }
	}
	parts := strings.Split(p, "*")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	expr := strings.Join(parts, ".*")
	if strings.Contains(p, "://") {
		expr = "^" + expr + "$"
	}
	return regexp.MustCompile(expr).MatchString
}
