package analyze

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/visible"
)

//go:embed visible.js
var visibleAdapterJS string

// visibleJS declares visible(el), textVisible(node) and textOf(root, max)
// over internal/visible, Gasoline's one in-page test of what a person can
// see: everything else is dropped from answers and counted
// (hidden_dropped). Put together with the scripts, on first use.
func visibleJS() string { return visible.JS() + "\n" + visibleAdapterJS }

//go:embed page.js
var helpersJS string

// script wraps a mode's function expression (opts) => result with the
// helpers, as one function declaration for Runtime.callFunctionOn. The
// source of each mode never changes, so V8 compiles it once per world. It
// is put together on first use: each copy of the helpers is tens of
// kilobytes, which modes of gasoline-host that never analyze (the
// native-messaging relay, --mcp) would otherwise hold from start.
func script(body string) func() string {
	return sync.OnceValue(func() string {
		return "function (opts, mask) {\nconst MASK = mask || [];\n" + sensitive.JS + "\n" + snapshot.RefOfJS + "\n" + visibleJS() + "\n" + helpersJS +
			"\nconst __r = (" + body + ")(opts);\n" +
			"const __h = () => ({hidden_dropped: H.dropped, hidden_reasons: H.why});\n" +
			"return __r instanceof Promise ? __r.then((v) => Object.assign(v, __h())) : Object.assign(__r, __h());\n}"
	})
}

// tabPage is one call's hold on its tab: the CDP session, the tab's action
// queue (held until release) and Gasoline's isolated world in the main
// frame.
type tabPage struct {
	s      *cdp.Session
	tab    int
	frame  cdproto.FrameID // the main frame
	ec     runtime.ExecutionContextID
	unlock func()
	mask   []byte // the sensitive selectors (internal/sensitive) as JSON: the scripts' second argument
}

// open resolves the call's tab, refuses one a dialog blocks, takes its
// action queue and Gasoline's world in its main frame. The caller must
// release it.
func (a *Analyzer) open(ctx context.Context, c *mcpserver.Call) (*tabPage, error) {
	s, err := a.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	tab := s.TabID()
	if err := a.dialog(tab); err != nil {
		return nil, err
	}
	unlock, err := a.cfg.Lock(ctx, tab)
	if err != nil {
		return nil, err
	}
	mask, err := sensitive.Of(a.cfg.Secrets)
	if err != nil {
		unlock()
		return nil, err
	}
	maskArg, err := jsonv2.Marshal(mask)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("analyze: encoding the sensitive selectors: %w", err)
	}
	p := &tabPage{s: s, tab: tab, unlock: unlock, mask: maskArg}
	if err := p.world(ctx); err != nil {
		unlock()
		return nil, tabs.ToolError(err)
	}
	return p, nil
}

func (p *tabPage) release() { p.unlock() }

// dialog refuses a tab that an open JavaScript dialog blocks.
func (a *Analyzer) dialog(tab int) error {
	ds := a.cfg.Store.OpenDialogs(tab)
	if len(ds) == 0 {
		return nil
	}
	return &tools.Error{Code: "dialog_open",
		NextAction: &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "handle_dialog", "accept": true, "tab_id": tab}},
		Message:    fmt.Sprintf("a %s dialog is open in tab %d and blocks the page; answer it with interact handle_dialog first", ds[len(ds)-1].Type, tab)}
}

// world finds (or makes) Gasoline's isolated world in the main frame.
func (p *tabPage) world(ctx context.Context) error {
	tree, err := cdproto.Call(ctx, p.s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return err
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return errors.New("analyze: the tab has no main frame")
	}
	p.frame = tree.FrameTree.Frame.ID
	no := false
	w, err := cdproto.Call(ctx, p.s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: p.frame, WorldName: snapshot.WorldName, GrantUniveralAccess: &no})
	if err != nil {
		return err
	}
	p.ec = w.ExecutionContextID
	return nil
}

// call runs fn (a function declaration) with arg in the world, awaits a
// promise it returns, and decodes the JSON value into out. A string the
// script throws that starts with a known word becomes a tool error.
func (p *tabPage) call(ctx context.Context, fn string, arg, out any) error {
	b, err := jsonv2.Marshal(arg)
	if err != nil {
		return fmt.Errorf("analyze: encoding a script argument: %w", err)
	}
	yes := true
	res, err := cdproto.Call(ctx, p.s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ExecutionContextID: p.ec, Arguments: []*runtime.CallArgument{{Value: jsonv2.Value(b)}, {Value: jsonv2.Value(p.mask)}},
		ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes})
	if err != nil {
		if cdp.ContextGone(err) {
			return &tools.Error{Code: tools.CodePageChanged, Retryable: true,
				Message: fmt.Sprintf("tab %d navigated while it was analyzed; retry", p.tab)}
		}
		return tabs.ToolError(err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		return thrown(p.tab, ex)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	if err := json.Unmarshal(res.Result.Value, out); err != nil {
		return fmt.Errorf("analyze: decoding the page's answer: %w", err)
	}
	return nil
}

// evalMain evaluates expression in the page's main world (where the
// vitals recorder lives) and decodes its JSON value into out.
func (p *tabPage) evalMain(ctx context.Context, expression string, out any) error {
	yes := true
	res, err := cdproto.Call(ctx, p.s, runtime.Evaluate, runtime.EvaluateParams{Expression: expression, ReturnByValue: &yes, Silent: &yes})
	if err != nil {
		return tabs.ToolError(err)
	}
	if ex := res.ExceptionDetails; ex != nil {
		return thrown(p.tab, ex)
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// thrown turns an exception of an analyze script into a tool error.
func thrown(tab int, ex *runtime.ExceptionDetails) error {
	msg := ex.Text
	if o := ex.Exception; o != nil {
		var s string
		if o.Type == runtime.RemoteObjectTypeString && jsonv2.Unmarshal(o.Value, &s) == nil {
			switch {
			case s == "no_match":
				return &tools.Error{Code: "element_not_found",
					Message: fmt.Sprintf("no element of tab %d matches the selector; check it (observe snapshot shows the page)", tab)}
			case s == "busy":
				return &tools.Error{Code: "busy", Retryable: true, RetryAfterMS: 2000,
					Message: fmt.Sprintf("an earlier audit of tab %d is still running in the page (its call ran out of time); retry in a moment, with a larger timeout_ms", tab)}
			case strings.HasPrefix(s, "bad_selector: "):
				return tools.Errorf(tools.CodeInvalidArgument, "the selector is not valid CSS (%s); analyze takes CSS selectors", strings.TrimPrefix(s, "bad_selector: "))
			}
			msg = s
		} else if o.Description != "" {
			msg = strings.SplitN(o.Description, "\n", 2)[0]
		}
	}
	return &tools.Error{Code: "page_error", Retryable: true,
		Message: fmt.Sprintf("the analysis script failed in tab %d (%s); the page may be changing: retry", tab, clipText(msg, 200))}
}

// clipText cuts s to n bytes on a rune boundary, never inside a run that
// could be half a secret (redact.SafeCut).
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:redact.SafeCut(s, n)] + "…"
}

// refName turns a ref number from the page into a ref the agent can use
// ("" unless the tab's latest snapshot issued it).
func (a *Analyzer) refName(tab, n int) string {
	ref, _ := a.cfg.Snapshots.Issued(tab, n)
	return ref
}

// refNum is an element's ref: the page answers the number the snapshot
// walker gave the element (0: none), held as "#12" until ref checks that
// the tab's latest snapshot issued it and makes it "e12" (or "").
type refNum string

// UnmarshalJSON reads the page's number.
func (r *refNum) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("analyze: a ref must be a number: %w", err)
	}
	*r = ""
	if n > 0 {
		*r = refNum("#" + strconv.Itoa(n))
	}
	return nil
}

// ref resolves a refNum from the page into a ref the agent can use.
func (a *Analyzer) ref(tab int, r refNum) refNum {
	n, err := strconv.Atoi(strings.TrimPrefix(string(r), "#"))
	if err != nil || !strings.HasPrefix(string(r), "#") {
		return ""
	}
	return refNum(a.refName(tab, n))
}

// refSuffix renders a ref for text answers.
func refSuffix(r refNum) string {
	if r == "" || strings.HasPrefix(string(r), "#") {
		return ""
	}
	return " [ref=" + string(r) + "]"
}
