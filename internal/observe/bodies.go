package observe

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Body size caps: one body, and all bodies of one answer.
const (
	maxBody        = 64 << 10
	maxBodiesTotal = 1 << 20
	defaultBodies  = 10
)

// BodiesResult is observe network_bodies' answer.
type BodiesResult struct {
	TabID     int    `json:"tab_id"`
	Bodies    []Body `json:"bodies"`
	Truncated bool   `json:"truncated,omitempty"` // more requests matched than were returned
}

// Body is one request's bodies. A body over 64 KiB is cut (…Truncated);
// binary response bodies are described, not returned.
type Body struct {
	RequestID         string `json:"request_id"`
	Method            string `json:"method"`
	URL               string `json:"url"`
	Status            int    `json:"status,omitempty"`
	MimeType          string `json:"mime_type,omitempty"`
	RequestBody       string `json:"request_body,omitempty"`
	RequestTruncated  bool   `json:"request_truncated,omitempty"`
	ResponseBody      string `json:"response_body,omitempty"`
	ResponseSize      int    `json:"response_size"`
	ResponseTruncated bool   `json:"response_truncated,omitempty"`
	Binary            bool   `json:"binary,omitempty"`
	// Error says why a body could not be read (evicted by Chrome, the page
	// navigated away, the request is still in flight, body_path matched
	// nothing).
	Error string `json:"error,omitempty"`
}

func (o *Observer) networkBodies(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := Budget(ctx, c)
	defer cancel()
	s, err := o.session(ctx, c)
	if err != nil {
		return nil, err
	}
	tab := s.TabID()
	id, url := c.Str("request_id"), c.Str("url")
	matches := o.findRequests(tab, id, url)
	if len(matches) == 0 {
		return nil, &tools.Error{Code: "not_found", NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "network_waterfall", "tab_id": tab}},
			Message: fmt.Sprintf("no captured request in tab %d matches; network_waterfall lists the requests with their ids", tab)}
	}
	r := BodiesResult{TabID: tab}
	limit := min(max(c.Int("limit", defaultBodies), 1), capture.MaxLimit)
	if len(matches) > limit {
		matches, r.Truncated = matches[len(matches)-limit:], true
	}
	total := 0
	for i := len(matches) - 1; i >= 0; i-- { // newest first
		if total >= maxBodiesTotal {
			r.Truncated = true
			break
		}
		b := o.readBody(ctx, s, matches[i], c.Str("body_path"))
		if ctx.Err() != nil {
			return nil, tabs.ToolError(ctx.Err())
		}
		total += len(b.RequestBody) + len(b.ResponseBody)
		r.Bodies = append(r.Bodies, b)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "tab %d: %d request bodies", tab, len(r.Bodies))
	for _, b := range r.Bodies {
		fmt.Fprintf(&t, "\n[%s] %s %s %d %s", b.RequestID, b.Method, b.URL, b.Status, b.MimeType)
		if b.RequestBody != "" {
			fmt.Fprintf(&t, "\n  request: %s", b.RequestBody)
		}
		switch {
		case b.Error != "":
			fmt.Fprintf(&t, "\n  (%s)", b.Error)
		case b.Binary:
			fmt.Fprintf(&t, "\n  response: binary, %s", size(int64(b.ResponseSize)))
		default:
			fmt.Fprintf(&t, "\n  response (%s): %s", size(int64(b.ResponseSize)), b.ResponseBody)
		}
		if b.ResponseTruncated || b.RequestTruncated {
			t.WriteString("\n  (cut at 64 KiB)")
		}
	}
	return mcpserver.PageResult(t.String(), r, r.page())
}

// page is the answer's page text: the URLs and bodies (Error is Gasoline's).
func (r BodiesResult) page() *untrusted.Page {
	p := new(untrusted.Page)
	for _, b := range r.Bodies {
		p.Add(b.URL, b.RequestBody, b.ResponseBody)
	}
	return p
}

// findRequests returns the captured requests of tab with that id (the last
// hop of a redirect chain) or whose URL contains url, oldest first.
func (o *Observer) findRequests(tab int, id, url string) []capture.Request {
	var out []capture.Request
	var after uint64
	for {
		p := o.cfg.Store.Network(tab, capture.NetworkQuery{After: after, Limit: capture.MaxLimit, URLContains: url})
		for _, r := range p.Entries {
			if id == "" || r.ID == id {
				out = append(out, r)
			}
		}
		after = p.Next
		if !p.Truncated {
			break
		}
	}
	if id != "" && len(out) > 1 {
		out = out[len(out)-1:]
	}
	return out
}

// readBody reads one request's bodies from the tab, or from its child
// sessions (a worker's requests live there).
func (o *Observer) readBody(ctx context.Context, s *cdp.Session, r capture.Request, path string) Body {
	b := Body{RequestID: r.ID, Method: r.Method, URL: r.URL, Status: r.Status, MimeType: r.MimeType}
	sessions := append([]*cdp.Session{s}, childSessions(s, o.cfg.Feed.Children(s.TabID()))...)
	var resp network.GetResponseBodyResult
	var err error
	for _, x := range sessions {
		if resp, err = cdproto.Call(ctx, x, network.GetResponseBody, network.GetResponseBodyParams{RequestID: network.RequestID(r.ID)}); err == nil {
			if post, perr := cdproto.Call(ctx, x, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: network.RequestID(r.ID)}); perr == nil {
				b.RequestBody, b.RequestTruncated = cut(string(post.PostData), maxBody)
			}
			break
		}
	}
	if err != nil {
		b.Error = bodyError(err)
		return b
	}
	b.ResponseSize = len(resp.Body)
	if resp.Base64encoded { // cdproto decoded it: binary content
		b.Binary = true
		return b
	}
	body := string(resp.Body)
	if path != "" { // body_path selects from the response body
		var perr string
		if body, perr = subtree(body, path); perr != "" {
			b.Error = perr
		}
	}
	b.ResponseBody, b.ResponseTruncated = cut(body, maxBody)
	return b
}

func childSessions(s *cdp.Session, children []Child) []*cdp.Session {
	out := make([]*cdp.Session, 0, len(children))
	for _, c := range children {
		out = append(out, s.Child(c.SessionID))
	}
	return out
}

// subtree selects body_path from a JSON body with gjson.
func subtree(body, path string) (string, string) {
	if body == "" {
		return "", ""
	}
	if !gjson.Valid(body) {
		return "", "the body is not JSON, so body_path does not apply"
	}
	res := gjson.Get(body, path)
	if !res.Exists() {
		return "", fmt.Sprintf("body_path %q matched nothing in the JSON body", path)
	}
	return res.Raw, ""
}

func bodyError(err error) string {
	msg := err.Error()
	var te *tools.Error
	if errors.As(tabs.ToolError(err), &te) {
		msg = te.Message
	}
	if strings.Contains(msg, "No resource with given identifier") || strings.Contains(msg, "No data found") {
		return "Chrome no longer holds this body (it was evicted from its buffer, or the page navigated away)"
	}
	return "the body could not be read: " + msg
}

// cut truncates s to n bytes on a rune boundary, never inside a run that
// could be half a secret (redact.SafeCut): the gateway redacts the answer
// afterwards.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	return s[:redact.SafeCut(s, n)], true
}
