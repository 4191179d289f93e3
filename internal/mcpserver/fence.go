package mcpserver

import (
	"bytes"
	"encoding/json"
	"maps"
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
//   - a new nonce fences this result alone (no page can know it: it is made
//     after the page was read);
//   - what no person sees is removed from the text and structuredContent
//     (zero-width and bidi characters, variation selectors, tags:
//     untrusted.Clean) and every line break becomes "\n"; the nonce is
//     removed wherever page text carries it;
//   - Options.Classifier scans the result's page text — what the handler
//     declared with PageResult (Page), else what an error's message quotes,
//     else the whole result but next_action — never Gasoline's own words;
//     what it finds goes to structuredContent.suspected_instructions, and
//     the session's later approval requests say so (Session.PageWarning);
//   - the text becomes: a warning line when something was found, a note
//     when hidden_dropped (top level, or under result for command_result)
//     is not zero, then the text between the two fence lines, with every
//     line inside that reads as a fence line or a note of Gasoline's after
//     folding neutralised. An error's text is Gasoline's guidance and is
//     not fenced (it gets the warning).
//
// Images and other contents pass as they are.
func (s *Server) fence(sess *session.Session, res *mcp.CallToolResult) *mcp.CallToolResult {
	f := untrusted.NewFence(untrusted.NewNonce())
	out := *res
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok && res.StructuredContent != nil {
		raw, _ = json.Marshal(res.StructuredContent) // redaction hands RawMessage; a test server may not
	}
	raw = f.StripJSON(untrusted.CleanJSON(raw))
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, f.Strip(untrusted.Clean(t.Text)))
		}
	}
	joined := strings.Join(texts, "\n")
	in := untrusted.Input{Text: joined, JSON: raw, TextIsJSON: raw != nil && bytes.Equal(raw, []byte(joined))}
	if page, ok := pageOf(res); ok {
		in.Page = s.pageAsSent(sess.ID(), f, page, joined)
	} else if res.IsError {
		in.Page = new(untrusted.Page).AddQuoted(gjson.GetBytes(raw, "message").String())
	}
	rep := untrusted.Scan(s.opts.Classifier, in)
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

// pageAsSent is a handler's page text as the agent receives it: cleaned
// and stripped of the nonce like the rest, and — unless it is in the
// (redacted) text as it is — passed through the redaction gateway, so that
// an excerpt never shows what redaction took out. A passage the gateway
// refuses is not scanned.
func (s *Server) pageAsSent(sid string, f *untrusted.Fence, page *untrusted.Page, text string) *untrusted.Page {
	out := new(untrusted.Page)
	for _, p := range page.Passages() {
		p = f.Strip(untrusted.Clean(p))
		if !strings.Contains(text, p) {
			var err error
			if p, err = s.opts.Redact.Text(sid, p); err != nil {
				continue
			}
		}
		out.Add(p)
	}
	return out
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

// pageKey is where a result carries its handler's page text (Page) inside
// the daemon: in the result's _meta, as a value that marshals to null;
// dispatch removes it before the result leaves.
const pageKey = "gasoline/page_text"

// PageResult is Result for an answer whose text or structuredContent mixes
// Gasoline's own words (messages, hints, headers, next_action, the
// "changed:" lines of an action) with text that came from a page: page is
// that page text, the only text the instruction scanner reads (fence.go).
// A handler of a page-text mode that answers with Result, or with a plain
// value, has its whole answer scanned.
func PageResult(text string, v any, page *untrusted.Page) (*mcp.CallToolResult, error) {
	res, err := Result(text, v)
	if err != nil {
		return nil, err
	}
	return WithPage(res, page), nil
}

// WithPage declares res's page text (PageResult) and returns res.
func WithPage(res *mcp.CallToolResult, page *untrusted.Page) *mcp.CallToolResult {
	if page == nil {
		page = new(untrusted.Page) // declared: there is none
	}
	m := maps.Clone(res.Meta)
	if m == nil {
		m = mcp.Meta{}
	}
	m[pageKey] = page
	res.Meta = m
	return res
}

// DeclaredPage returns the page text a handler declared on res
// (PageResult, WithPage), for the handlers' tests.
func DeclaredPage(res *mcp.CallToolResult) (*untrusted.Page, bool) { return pageOf(res) }

// pageOf returns the page text res declared.
func pageOf(res *mcp.CallToolResult) (*untrusted.Page, bool) {
	p, ok := res.Meta[pageKey].(*untrusted.Page)
	return p, ok
}

// withoutPage returns res without its page-text declaration (a copy when
// it had one: results are kept for command_result).
func withoutPage(res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	if _, ok := res.Meta[pageKey]; !ok {
		return res
	}
	out := *res
	out.Meta = maps.Clone(res.Meta)
	delete(out.Meta, pageKey)
	if len(out.Meta) == 0 {
		out.Meta = nil
	}
	return &out
}
