package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// CodeRedactionFailed: the redaction gateway could not vouch for a result
// (its policy does not load, or the engine failed), so the result was
// blocked rather than passed through.
const CodeRedactionFailed = "redaction_failed"

// Redactor is the server stage of the redaction gateway for tool results
// (*redact.Gateway implements it). Both methods fail closed: an error means
// no output.
type Redactor interface {
	Text(sessionID, s string) (string, error)
	JSON(sessionID string, raw []byte) ([]byte, error)
}

// redactResult passes every text content and the structured content of res
// through the redactor. Images and other binary content pass untouched
// (screenshots are masked before capture instead). Any failure replaces the
// whole result with a redaction_failed error (ok false).
func (s *Server) redactResult(sessionID string, res *mcp.CallToolResult) (_ *mcp.CallToolResult, ok bool) {
	r := s.opts.Redact
	if res == nil {
		return res, true
	}
	out := *res
	// The structured content first: okResult's text content is the same
	// JSON, redacted once and reused.
	var raw, red []byte
	if res.StructuredContent != nil {
		var ok bool
		if raw, ok = res.StructuredContent.(json.RawMessage); !ok {
			var err error
			if raw, err = json.Marshal(res.StructuredContent); err != nil {
				return s.blocked(err), false
			}
		}
		var err error
		if red, err = r.JSON(sessionID, raw); err != nil {
			return s.blocked(err), false
		}
		out.StructuredContent = json.RawMessage(red)
	}
	out.Content = make([]mcp.Content, len(res.Content))
	for i, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			out.Content[i] = c
			continue
		}
		tc := *t
		if red != nil && t.Text == string(raw) {
			tc.Text = string(red)
		} else {
			text, err := r.Text(sessionID, t.Text)
			if err != nil {
				return s.blocked(err), false
			}
			tc.Text = text
		}
		out.Content[i] = &tc
	}
	return &out, true
}

// blocked is the answer that replaces a result redaction refused. The
// error text never quotes the result.
func (s *Server) blocked(err error) *mcp.CallToolResult {
	s.log.Error("result blocked by the redaction gateway", "err", err)
	msg := "the result was blocked because the redaction gateway could not check it (" + errText(err) + "); " +
		"fix the redaction policy (configure {what:\"redaction\"} shows it, gasoline-host doctor checks it) or ask for less (limit, summary, a narrower selector)"
	return errorResult(&tools.Error{Code: CodeRedactionFailed, Message: msg})
}

// Blocked is the tool error for an output (a file, an approval prompt, an
// export) the redaction gateway refused: nothing was written or shown.
func Blocked(what string, err error) *tools.Error {
	return &tools.Error{Code: CodeRedactionFailed,
		Message: fmt.Sprintf("%s was blocked because the redaction gateway could not check it (%v); fix the redaction policy (configure {what:\"redaction\", op:\"get\"} shows the error)", what, err)}
}

func errText(err error) string {
	var je *json.SyntaxError
	if errors.As(err, &je) {
		return "the result was not valid JSON"
	}
	return err.Error()
}

// MaskSelectors returns the CSS selectors of elements to mask in
// screenshots besides password and card fields (from the redaction
// policy). An error means the policy is not usable: fail closed.
func (c *Call) MaskSelectors() ([]string, error) {
	if c.srv == nil || c.srv.opts.MaskSelectors == nil {
		return nil, nil
	}
	return c.srv.opts.MaskSelectors()
}
