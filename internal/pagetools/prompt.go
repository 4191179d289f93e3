package pagetools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/audit"
	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// The approval of a page tool call, in one place: which calls ask, and
// the words the user reads. The panel shows Target as the request's
// headline ("call the page's own tool "add_to_cart" on tab 7 (…)") and
// Lines as its list: the exact arguments, then the page's description
// under a label that says the page wrote it.

// pageCall is call_page_tool's arguments, decoded once for the gate and
// the handler (mcpserver.Decoded).
type pageCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Frame     string          `json:"frame"`

	// What the gate planned: the tab, the tool (and its definition, as
	// the user was shown it), the arguments as sent, and the generation
	// of the tab's tools then (Manager.generation).
	planned bool
	tab     int
	tool    Tool
	def     string
	sent    []byte
	gen     uint64
}

// args is the arguments as they are shown and sent: compact JSON, {}
// when none were given.
func (pc *pageCall) args() ([]byte, error) {
	raw := bytes.TrimSpace(pc.Arguments)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return []byte("{}"), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// planWait bounds reading the page's tools before anyone is asked.
const planWait = 10 * time.Second

// Plan is gate.PageTools.Plan: it finds the tool on the page now, checks
// the arguments against its schema, and words the prompt.
func (m *Manager) Plan(ctx context.Context, c *mcpserver.Call, tab int) (_ gate.PagePlan, e *tools.Error) {
	defer func() { // the gate runs outside the dispatcher's recover: a bug refuses the call, never the daemon
		if p := recover(); p != nil {
			m.log.Error("planning a page tool call panicked", "panic", fmt.Sprint(p))
			e = tools.Errorf(tools.CodeInternal, "interact call_page_tool failed inside the daemon (a bug); nothing ran")
		}
	}()
	pc, err := mcpserver.Decoded[pageCall](c)
	if err != nil {
		return gate.PagePlan{}, tools.Errorf(tools.CodeInvalidArgument, "arguments of interact call_page_tool: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, planWait)
	defer cancel()
	t, args, gen, te := m.resolve(ctx, c, tab, pc)
	if te != nil {
		return gate.PagePlan{}, te
	}
	pc.planned, pc.tab, pc.tool, pc.def, pc.sent, pc.gen = true, tab, t, t.def(), args, gen
	return gate.PagePlan{ReadOnly: readOnly(t), High: t.Autosubmit, Target: target(t), Lines: lines(t, args), Def: pc.def}, nil
}

// readOnly: the page marked the tool read-only, and it is not a form that
// submits itself.
func readOnly(t Tool) bool { return t.ReadOnly && !t.Autosubmit }

// resolve finds the tool a call names on the tab's page and checks its
// arguments.
func (m *Manager) resolve(ctx context.Context, c *mcpserver.Call, tab int, pc *pageCall) (Tool, []byte, uint64, *tools.Error) {
	args, err := pc.args()
	if err != nil {
		return Tool{}, nil, 0, tools.Errorf(tools.CodeInvalidArgument, "arguments must be a JSON object: %v", err)
	}
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), tab)
	if err != nil {
		return Tool{}, nil, 0, asToolError(err)
	}
	v, err := m.look(ctx, s)
	if err != nil {
		return Tool{}, nil, 0, asToolError(err)
	}
	switch v.webmcp {
	case stateOff:
		return Tool{}, nil, 0, errOff(v.tab)
	case stateUnavailable:
		return Tool{}, nil, 0, tools.Errorf(CodeUnavailable, "%s", v.note)
	}
	t, e := v.find(pc.Name, pc.Frame)
	if e != nil {
		return Tool{}, nil, 0, e
	}
	if t.SchemaTooBig {
		return Tool{}, nil, 0, &tools.Error{Code: CodeBadSchema, NextAction: listNext(v.tab),
			Message: fmt.Sprintf("page tool %s: its input schema is larger than %d bytes, so Gasoline cannot check arguments against it and does not call it", quote(t.Name), maxSchema)}
	}
	if err := checkArgs(t.Schema, args); err != nil {
		var se *schemaError
		code := tools.CodeInvalidArgument
		if errors.As(err, &se) {
			code = CodeBadSchema
		}
		return Tool{}, nil, 0, &tools.Error{Code: code, Message: fmt.Sprintf("page tool %s: %v", quote(t.Name), err), NextAction: listNext(v.tab)}
	}
	return t, args, v.gen, nil
}

// asToolError keeps a structured error (a tab the session cannot use)
// and wraps anything else.
func asToolError(err error) *tools.Error {
	var te *tools.Error
	if errors.As(err, &te) {
		return te
	}
	return &tools.Error{Code: tools.CodeInternal, Message: err.Error() + "; retry", Retryable: true, RetryAfterMS: 500}
}

// target is the prompt's headline; the gate adds the tab and origin.
func target(t Tool) string {
	switch {
	case t.Autosubmit:
		return fmt.Sprintf("fill in and submit the page's own form tool %q", t.Name)
	case t.Declarative:
		return fmt.Sprintf("fill in the page's own form tool %q", t.Name)
	}
	return fmt.Sprintf("call the page's own tool %q", t.Name)
}

// lines are the prompt's other lines, Gasoline's words first on each.
func lines(t Tool, args []byte) []string {
	out := []string{"with these arguments, exactly: " + string(args)}
	if t.Autosubmit {
		out = append(out, "the page submits its form at once, with no further step (high risk)")
	} else if t.Declarative {
		out = append(out, "the page fills its form and waits for you to submit it")
	}
	desc := "(none)"
	if t.Description != "" {
		desc = fmt.Sprintf("%q", clip(t.Description, maxDescription))
	}
	out = append(out, "written by the page, not by Gasoline — its description of the tool: "+desc)
	if t.Title != "" {
		out = append(out, fmt.Sprintf("written by the page — its title for the tool: %q", clip(t.Title, 200)))
	}
	if looksLikeGasoline(t) {
		out = append(out, "the page named or described this tool like one of Gasoline's own; it is the page's code, not Gasoline's")
	}
	return out
}

// Unasked is gate.PageTools.Unasked: the audit log records each call that
// ran without asking because the page marked the tool read-only.
func (m *Manager) Unasked(c *mcpserver.Call, req approval.Request) {
	err := m.cfg.Audit(audit.Entry{Time: time.Now(), Kind: "approval", SessionID: req.SessionID, Action: req.Action,
		Class: string(req.Class), Decision: "page_read_only", Target: req.Target, Steps: req.Steps,
		Reason: "not asked: the page marked this tool readOnlyHint"})
	if err != nil {
		m.log.Error("audit write failed", "action", req.Action, "err", err)
	}
}

// def fingerprints the tool as a person is shown it and as it runs.
func (t Tool) def() string {
	raw, _ := json.Marshal([]any{t.Name, t.Frame, t.Title, t.Description, string(t.Schema), t.SchemaTooBig, t.ReadOnly, t.Declarative, t.Autosubmit})
	h := sha256.Sum256(raw)
	return hex.EncodeToString(h[:12])
}

// looksLikeGasoline reports a tool named like one of Gasoline's tools or
// modes ("interact", "configure.policy", "gasoline_approve"), or whose
// words carry Gasoline's fence marks.
func looksLikeGasoline(t Tool) bool {
	for _, s := range []string{t.Name, t.Title} {
		n := squash(s)
		if n == "" {
			continue
		}
		if strings.Contains(n, "gasoline") {
			return true
		}
		for _, tl := range tools.All() {
			if n == tl.Name {
				return true
			}
			for _, md := range tl.Modes {
				if n == tl.Name+md.Name {
					return true
				}
			}
		}
	}
	text := t.Name + t.Title + t.Description
	return strings.Contains(text, untrusted.OpenMark) || strings.Contains(text, untrusted.CloseMark)
}

// squash lowercases s and keeps its letters and digits.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
