package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// fence marks the page text of a result as untrusted data (SAFETY.md,
// "Page content is untrusted"), after redaction, for the modes
// tools.PageText names:
//
//   - the session's nonce is removed from the text and structuredContent
//     (a page cannot close the fence early, nor open one);
//   - Options.Classifier scans both for instruction-like passages; they go
//     to structuredContent.suspected_instructions, and the session's later
//     approval requests say so (Session.PageWarning);
//   - the text becomes: a warning line when something was found, a note
//     when hidden_dropped (top level, or under result for command_result)
//     is not zero, then the text between the two fence lines. An error's
//     text is Gasoline's guidance and is not fenced (it gets the warning).
//
// Images and other contents pass as they are.
func (s *Server) fence(sess *session.Session, res *mcp.CallToolResult) *mcp.CallToolResult {
	f := untrusted.NewFence(sess.PageNonce())
	out := *res
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok && res.StructuredContent != nil {
		raw, _ = json.Marshal(res.StructuredContent) // redaction hands RawMessage; a test server may not
	}
	raw = f.StripJSON(raw)
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, f.Strip(t.Text))
		}
	}
	joined := strings.Join(texts, "\n")
	rep := untrusted.Scan(s.opts.Classifier, untrusted.Input{Text: joined, JSON: raw, TextIsJSON: raw != nil && bytes.Equal(raw, []byte(joined))})
	if rep.Total > 0 {
		raw = withFindings(raw, rep.Findings)
		sess.SetPageWarning(untrusted.ApprovalWarning(rep))
	}
	hidden := int(gjson.GetBytes(raw, "hidden_dropped").Int() + gjson.GetBytes(raw, "result.hidden_dropped").Int())
	if raw != nil {
		out.StructuredContent = json.RawMessage(raw)
	}
	out.Content = make([]mcp.Content, 0, len(res.Content))
	i := 0
	for _, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok {
			out.Content = append(out.Content, c)
			continue
		}
		tc := *t
		r, h := rep, hidden
		if i > 0 {
			r, h = untrusted.Report{}, 0 // the notes go once, before the first text
		}
		if res.IsError {
			tc.Text = untrusted.Annotate(texts[i], r)
		} else {
			tc.Text = f.Wrap(texts[i], r, h)
		}
		i++
		out.Content = append(out.Content, &tc)
	}
	return &out
}

// withFindings adds suspected_instructions to a structuredContent object,
// keeping its keys in their order. Anything but an object is left alone
// (the warning line still says where to look).
func withFindings(raw []byte, fs []untrusted.Finding) []byte {
	t := bytes.TrimRight(raw, " \t\r\n")
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return raw
	}
	list, err := json.Marshal(fs)
	if err != nil {
		return raw
	}
	var b bytes.Buffer
	b.Write(t[:len(t)-1])
	if len(bytes.TrimSpace(t[1:len(t)-1])) > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`"suspected_instructions":`)
	b.Write(list)
	b.WriteByte('}')
	return b.Bytes()
}
