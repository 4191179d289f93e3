package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// EvalArgs are execute_js's arguments.
type EvalArgs struct {
	Script string
	Frame  string // a ref or selector of an iframe: evaluate in its document
}

// serializeJS turns an object result into capped JSON in the page: DOM
// nodes are described, cycles and functions marked.
const serializeJS = `function (max) {
  const seen = new WeakSet();
  const s = JSON.stringify(this, function (k, v) {
    if (typeof v === 'bigint') return v.toString() + 'n';
    if (typeof v === 'function') return '[function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'symbol' || v === undefined) return v === undefined ? null : v.toString();
    if (v && typeof v === 'object') {
      if (typeof Node !== 'undefined' && v instanceof Node) return '[' + (v.nodeType === 1 ? (v.outerHTML || '').slice(0, 120) : v.nodeName) + ']';
      if (v instanceof Map) return Object.fromEntries(v);
      if (v instanceof Set) return [...v];
      if (v instanceof Error) return v.name + ': ' + v.message;
      if (seen.has(v)) return '[circular]';
      seen.add(v);
    }
    return v;
  });
  if (s === undefined) return {json: 'null', truncated: false};
  return s.length > max ? {json: s.slice(0, max), truncated: true} : {json: s, truncated: false};
}`

// ExecuteJS evaluates a script in the page's main world (Runtime.evaluate,
// awaiting a promise, as a user gesture) and returns its value as JSON,
// capped at Config.MaxResult (Truncated says so). A thrown exception is a
// js_exception error with its message and location. A script still
// running when ctx ends is terminated.
//
// Its answer reports navigations, dialogs, errors and failed requests but
// does not probe url and title (one round trip in all for a script that
// returns a primitive).
func (e *Engine) ExecuteJS(ctx context.Context, tab int, args EvalArgs) (*Result, error) {
	return e.run(ctx, tab, "execute_js", runOpts{}, func(ctx context.Context, a *act) error { return a.doEval(ctx, args) })
}

func (a *act) doEval(ctx context.Context, args EvalArgs) error {
	if strings.TrimSpace(args.Script) == "" {
		return invalid("script is empty")
	}
	s, obj, err := a.evalTarget(ctx, args.Frame)
	if err != nil {
		return err
	}
	var res *runtime.RemoteObject
	var ex *runtime.ExceptionDetails
	yes := true
	// Chrome refuses Runtime.terminateExecution to extensions; a script's
	// synchronous run is bounded by Runtime.evaluate's timeout instead.
	budget := 30 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		budget = max(time.Until(dl)-200*time.Millisecond, 50*time.Millisecond)
	}
	start := time.Now()
	err = a.blocking(ctx, func(ctx context.Context) error {
		if obj != "" { // a same-process frame: its own window's eval
			r, err := cdproto.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
				FunctionDeclaration: `function (s) { return (0, this.defaultView.eval)(s) }`, ObjectID: obj, ObjectGroup: objectGroup,
				Arguments: []*runtime.CallArgument{{Value: mustJSON(args.Script)}}, AwaitPromise: &yes, UserGesture: &yes})
			res, ex = r.Result, r.ExceptionDetails
			return err
		}
		r, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: args.Script,
			ObjectGroup: objectGroup, AwaitPromise: &yes, UserGesture: &yes, Timeout: runtime.TimeDelta(budget.Milliseconds())})
		res, ex = r.Result, r.ExceptionDetails
		return err
	})
	switch {
	case errors.Is(err, errDialogOpened):
		a.res.Message = "the script opened a dialog; its result comes once the dialog is answered (handle_dialog)"
		return nil
	case err != nil && time.Since(start) >= budget && internalError(err):
		return &tools.Error{Code: tools.CodeTimeout, Message: fmt.Sprintf("the script ran for %s, past the call's budget, and was stopped; make it shorter, or raise timeout_ms", budget.Round(time.Millisecond))}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &tools.Error{Code: tools.CodeTimeout, Retryable: true, Message: "the script's promise did not settle within the call's budget; it may still run in the page; raise timeout_ms to wait longer"}
	case err != nil:
		return err
	case ex != nil:
		return jsException(ex)
	}
	v, truncated, err := a.resultValue(ctx, s, res)
	if err != nil {
		return err
	}
	a.res.Value, a.res.Truncated = v, truncated
	b, _ := json.Marshal(v) // redacted already (resultValue): the message is cut after
	msg := "evaluated: " + clip(string(b), 200)
	if res != nil && res.Type == runtime.RemoteObjectTypeUndefined {
		msg = "evaluated: undefined"
	}
	if truncated {
		msg += fmt.Sprintf(" (cut to %d bytes)", a.e.cfg.MaxResult)
	}
	a.res.Message = msg
	return nil
}

func mustJSON(v any) jsonv2.Value {
	b, _ := jsonv2.Marshal(v)
	return jsonv2.Value(b)
}

// evalTarget picks where the script runs: the tab's main world, an
// out-of-process frame's session (its main world), or a same-process
// frame's document (then obj is that document).
func (a *act) evalTarget(ctx context.Context, frame string) (cdproto.Session, runtime.RemoteObjectID, error) {
	if frame == "" {
		return a.s, "", nil
	}
	sid, fid, err := a.frameOf(ctx, frame)
	if err != nil {
		return nil, "", err
	}
	s := a.e.session(a.tab, sid)
	if fid == "" {
		return s, "", nil
	}
	owner, err := cdproto.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: fid})
	if err != nil {
		return nil, "", fmt.Errorf("finding frame %s: %w", frame, err)
	}
	zero := int64(1)
	d, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: owner.BackendNodeID, Depth: &zero})
	if err != nil || d.Node == nil || d.Node.ContentDocument == nil {
		return nil, "", errorf(CodeFrame, "frame %s has no document to run in", frame)
	}
	r, err := cdproto.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: d.Node.ContentDocument.BackendNodeID, ObjectGroup: objectGroup})
	if err != nil {
		return nil, "", fmt.Errorf("reaching frame %s: %w", frame, err)
	}
	return s, r.Object.ObjectID, nil
}

// resultValue turns the script's result into a JSON value: primitives as
// they are, objects serialized in the page. A string or a serialization
// is read up to twice MaxResult, redacted whole (Config.Redact), and only
// then cut to MaxResult: the cut never splits a secret the gateway would
// miss.
func (a *act) resultValue(ctx context.Context, s cdproto.Session, o *runtime.RemoteObject) (any, bool, error) {
	max := a.e.cfg.MaxResult
	switch {
	case o == nil, o.Type == runtime.RemoteObjectTypeUndefined:
		return nil, false, nil
	case o.UnserializableValue != "":
		return string(o.UnserializableValue), false, nil
	case o.ObjectID == "":
		var v any
		if err := jsonv2.Unmarshal(o.Value, &v); err != nil {
			return nil, false, fmt.Errorf("actions: decoding the script's result: %w", err)
		}
		if str, ok := v.(string); ok {
			return a.redactCut(str, false)
		}
		return v, false, nil
	}
	var out struct {
		JSON      string `json:"json"`
		Truncated bool   `json:"truncated"`
	}
	if err := callValue(ctx, s, jsCall{fn: serializeJS, object: o.ObjectID, args: []any{2 * max}}, &out); err != nil {
		return a.redactCut(o.Description, false) // not serializable: its description
	}
	if out.Truncated {
		out.JSON = redact.TrimCut(out.JSON) // the page's cut may have split a secret
	}
	str, cut, err := a.redactCut(out.JSON, out.Truncated)
	if err != nil {
		return nil, false, err
	}
	var v any
	if cut || json.Unmarshal([]byte(str.(string)), &v) != nil {
		return str, cut, nil
	}
	return v, false, nil
}

// redactCut redacts a result string whole, then cuts it to MaxResult
// (never inside a secret-shaped run). cut is true when it was cut here or
// already in the page.
func (a *act) redactCut(s string, cut bool) (any, bool, error) {
	if a.e.cfg.Redact != nil {
		r, err := a.e.cfg.Redact(s)
		if err != nil {
			return nil, false, &tools.Error{Code: "redaction_failed", Message: "the script's result was blocked because the redaction gateway could not check it (" + err.Error() + "); fix the redaction policy (configure {what:\"redaction\", op:\"get\"} shows the error)"}
		}
		s = r
	}
	if max := a.e.cfg.MaxResult; len(s) > max {
		if a.e.cfg.Redact != nil {
			return s[:runeCut(s, max)], true, nil // redacted whole already: no secret left to split
		}
		return s[:redact.SafeCut(s, max)], true, nil
	}
	return s, cut, nil
}

// jsException is the structured error of a script that threw.
func jsException(ex *runtime.ExceptionDetails) *tools.Error {
	msg := ex.Text
	if o := ex.Exception; o != nil {
		switch {
		case o.Description != "":
			msg = strings.SplitN(o.Description, "\n", 2)[0]
		case len(o.Value) > 0:
			msg = "Uncaught " + string(o.Value)
		}
	}
	details := map[string]any{"line": ex.LineNumber + 1, "column": ex.ColumnNumber + 1}
	if st := ex.StackTrace; st != nil {
		var frames []string
		for _, f := range st.CallFrames[:min(len(st.CallFrames), 5)] {
			frames = append(frames, fmt.Sprintf("%s (%s:%d:%d)", cmpOr(f.FunctionName, "<anonymous>"), f.URL, f.LineNumber+1, f.ColumnNumber+1))
		}
		details["stack"] = frames
	}
	return &tools.Error{Code: CodeJSException, Details: details,
		Message: fmt.Sprintf("the script threw %s at line %d, column %d", clip(msg, 300), ex.LineNumber+1, ex.ColumnNumber+1)}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// runeCut is where to cut s to at most n bytes without splitting a rune.
func runeCut(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
