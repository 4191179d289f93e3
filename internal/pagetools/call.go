package pagetools

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/webmcp"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// maxOutput caps the output a call answers with (bytes of JSON).
const maxOutput = 64 << 10

// cancelWait bounds telling Chrome to cancel a call that ran out of time.
const cancelWait = 2 * time.Second

// answer is call_page_tool's result. Output is the page's.
type answer struct {
	TabID     int             `json:"tab_id"`
	Name      string          `json:"name"`
	Status    string          `json:"status"` // completed | submitted (a form tool whose page navigated)
	Output    json.RawMessage `json:"output,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
	URL       string          `json:"url,omitempty"` // submitted: where the page went
	MS        int64           `json:"ms"`
	// UntrustedContent: the page says the output may carry other
	// people's content.
	UntrustedContent bool `json:"untrusted_content,omitempty"`
}

// call is interact call_page_tool: the gate planned it (found the tool,
// checked the arguments, asked the user unless the page marked the tool
// read-only); the tool is found again, unchanged, and invoked within the
// call's budget.
func (m *Manager) call(ctx context.Context, c *mcpserver.Call) (any, error) {
	pc, ok := c.Plan().(*pageCall)
	if !ok || !pc.planned {
		return nil, tools.Errorf(tools.CodeInternal, "interact call_page_tool was not checked by the approval gate; refused")
	}
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	tab, ok := m.cfg.Tabs.Resolve(c.Session.ID(), c.Args.TabID)
	if !ok {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "no tab to call the page's tool in; open one with interact new_tab")
	}
	if tab != pc.tab {
		return nil, &tools.Error{Code: CodeChanged, NextAction: listNext(tab),
			Message: "the session's current tab changed after the call was checked; nothing ran: call it again with tab_id"}
	}
	unlock, err := m.cfg.Lock(ctx, tab)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, args := pc.tool, pc.sent
	if m.generation(tab) != pc.gen { // the page's tools changed since: find it again, unchanged
		var e *tools.Error
		if t, args, _, e = m.resolve(ctx, c, tab, pc); e != nil {
			return nil, e
		}
		if t.def() != pc.def {
			return nil, &tools.Error{Code: CodeChanged, NextAction: listNext(tab),
				Message: "the page changed this tool (its description, schema or hints) after the call was checked; nothing ran: list the tools again, then call it anew (the user is asked about the tool as it is now)"}
		}
	}
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), tab)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	o, e := m.invoke(ctx, s, t, args)
	if e != nil {
		return nil, e
	}
	a := answer{TabID: tab, Name: t.Name, Status: "completed", MS: time.Since(start).Milliseconds(), UntrustedContent: t.Untrusted}
	if o.kind == navigated { // a form tool's page went on to its result
		a.Status, a.URL = "submitted", o.url
	} else {
		a.Output, a.Truncated = capOutput(o.resp.Output)
	}
	return mcpserver.PageResult(renderAnswer(a), a, a.page())
}

// page is the answer's page text: the tool's name, its output and where a
// form's page went (the rest is Gasoline's words).
func (a answer) page() *untrusted.Page {
	p := new(untrusted.Page).Add(a.Name, a.URL)
	var out any
	if json.Unmarshal(a.Output, &out) == nil {
		p.AddValue(out)
	} else {
		p.Add(string(a.Output))
	}
	return p
}

// invoke runs the tool and waits for its outcome, bounded by ctx.
func (m *Manager) invoke(ctx context.Context, s *cdp.Session, t Tool, args []byte) (outcome, *tools.Error) {
	tab := s.TabID()
	inv, untrack, err := m.track(tab, t.Frame, t.Name)
	if err != nil {
		return outcome{}, asToolError(err)
	}
	defer untrack()
	res, err := cdproto.Call(ctx, s, webmcp.InvokeTool, webmcp.InvokeToolParams{FrameID: cdproto.FrameID(t.Frame), ToolName: t.Name, Input: jsonv2.Value(args)})
	if err != nil {
		if ctx.Err() != nil {
			return outcome{}, m.late(s, t, "", ctx)
		}
		return outcome{}, &tools.Error{Code: CodeNotFound, NextAction: listNext(tab),
			Message: fmt.Sprintf("Chrome could not start the page's tool %s (%v): the page may have removed it; list the tools again", quote(t.Name), err)}
	}
	m.bound(tab, inv, res.InvocationID)
	select {
	case o := <-inv.done:
		return o, failure(tab, t, o)
	case <-ctx.Done():
		return outcome{}, m.late(s, t, res.InvocationID, ctx)
	}
}

// failure is the error an outcome is, or nil for a result.
func failure(tab int, t Tool, o outcome) *tools.Error {
	switch o.kind {
	case removed:
		return &tools.Error{Code: CodeRemoved, NextAction: listNext(tab),
			Message: fmt.Sprintf("the page removed its tool %s while it ran; no answer came. List the page's tools again before you retry: what it did before it was removed is unknown", quote(t.Name))}
	case navigated:
		if t.Declarative {
			return nil // its form was submitted: the page went on to the result
		}
		return &tools.Error{Code: CodeNavigated, NextAction: listNext(tab),
			Message: "the page navigated (or the tool's frame went away) while the tool ran, so its answer is lost; read the page (observe page) and list its tools again before you retry"}
	case detached:
		return &tools.Error{Code: CodeNavigated, Retryable: true, RetryAfterMS: 500,
			Message: "Gasoline's debugger left the tab while the tool ran (the tab closed, was replaced, or the extension restarted); its answer is lost"}
	}
	switch o.resp.Status {
	case "Completed":
		return nil
	case "Canceled":
		return &tools.Error{Code: CodeCanceled, NextAction: listNext(tab), Message: "the call was cancelled in the browser before the tool answered"}
	}
	return &tools.Error{Code: CodeThrew,
		Message: fmt.Sprintf("the page's tool %s failed: it threw %s. The page's code failed, not Gasoline: check the arguments against observe page_tools, or ask the user",
			quote(t.Name), quote(clip(o.resp.message(), 200)))}
}

// late is the error of a call that ran out of its budget. A script tool
// is cancelled (the page's ontoolcancel runs); a form the user must
// submit is left filled for them.
func (m *Manager) late(s *cdp.Session, t Tool, id string, ctx context.Context) *tools.Error {
	if t.Declarative && !t.Autosubmit {
		return &tools.Error{Code: CodeAwaitsUser,
			Message:    fmt.Sprintf("the page filled its form tool %s and waits for the user to submit it (the page did not mark it toolautosubmit); ask the user to review the form and submit it, then read the page", quote(t.Name)),
			NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "page"}, AskUser: "The page's form is filled in. Please review it and submit it if it is right."}}
	}
	if id != "" {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelWait)
		defer cancel()
		if _, err := cdproto.Call(cctx, s, webmcp.CancelInvocation, webmcp.CancelInvocationParams{InvocationID: id}); err != nil {
			m.log.Warn("WebMCP.cancelInvocation failed", "tab", s.TabID(), "err", err)
		}
	}
	return &tools.Error{Code: CodeNoAnswer, Retryable: true,
		Message: fmt.Sprintf("the page's tool %s did not answer within the call's budget; Gasoline cancelled it. Retry with a larger timeout_ms if the tool is slow, or tell the user the page's tool hangs", quote(t.Name))}
}

// capOutput bounds the page's output.
func capOutput(out json.RawMessage) (json.RawMessage, bool) {
	if len(out) <= maxOutput {
		return out, false
	}
	s, _ := json.Marshal(clip(string(out), maxOutput))
	return s, true
}

// renderAnswer is the result's text: a header line, then the page's
// output (its text parts, when it answered MCP-style content).
func renderAnswer(a answer) string {
	head := fmt.Sprintf("the page's tool %q in tab %d answered (%s, %d ms)", a.Name, a.TabID, a.Status, a.MS)
	if a.Status == "submitted" {
		return head + ": its form was submitted and the page went to " + a.URL
	}
	body := string(a.Output)
	if texts := contentTexts(a.Output); texts != "" {
		body = texts
	}
	if a.Truncated {
		head += fmt.Sprintf(", output cut at %d bytes", maxOutput)
	}
	return head + ":\n" + body
}

// contentTexts joins the text parts of an MCP-style {content:[{type:"text",
// text}]} output, or is "".
func contentTexts(out json.RawMessage) string {
	var v struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(out, &v) != nil {
		return ""
	}
	var s string
	for _, c := range v.Content {
		if c.Type == "text" {
			if s != "" {
				s += "\n"
			}
			s += c.Text
		}
	}
	return s
}
