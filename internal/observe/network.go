package observe

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// WaterfallResult is observe network_waterfall's answer: finished requests
// in the order they finished, and the ones still in flight.
type WaterfallResult struct {
	TabID      int               `json:"tab_id"`
	Requests   []capture.Request `json:"requests,omitempty"`
	Pending    []capture.Request `json:"pending,omitempty"`
	Summary    *NetSummary       `json:"summary,omitempty"`
	NextCursor string            `json:"next_cursor"`
	Truncated  bool              `json:"truncated,omitempty"`
	Missed     uint64            `json:"missed,omitempty"`
}

// NetSummary counts requests.
type NetSummary struct {
	Requests int            `json:"requests"`
	Failed   int            `json:"failed"` // load failed or status ≥ 400
	Bytes    int64          `json:"bytes"`
	ByType   map[string]int `json:"by_type"`
	ByStatus map[string]int `json:"by_status"` // "2xx", "4xx", "failed", …
	Slowest  string         `json:"slowest,omitempty"`
}

// netFilter is network_waterfall's filters: url, method, status (404,
// 4xx, failed) and type (xhr, fetch, document, …).
type netFilter struct {
	q      capture.NetworkQuery
	method string
}

func netFilterOf(c *mcpserver.Call) (netFilter, error) {
	q, err := statusFilter(c.Str("status"))
	if err != nil {
		return netFilter{}, err
	}
	q.URLContains, q.ResourceType = c.Str("url"), resourceType(c.Str("type"))
	return netFilter{q: q, method: strings.ToUpper(c.Str("method"))}, nil
}

// statusFilter reads the status argument: a code (404), a class (4xx) or
// failed (load failures and statuses of 400 and more).
func statusFilter(status string) (capture.NetworkQuery, error) {
	var q capture.NetworkQuery
	switch st := strings.ToLower(status); {
	case st == "":
	case st == "failed" || st == "error" || st == "errors":
		q.FailedOnly = true
	case len(st) == 3 && st[1:] == "xx" && st[0] >= '1' && st[0] <= '5':
		q.StatusMin, q.StatusMax = int(st[0]-'0')*100, int(st[0]-'0')*100+99
	default:
		n, err := strconv.Atoi(st)
		if err != nil || n < 100 || n > 599 {
			return q, &tools.Error{Code: tools.CodeInvalidArgument, NextAction: tools.Describe("observe", "network_waterfall"),
				Message: "status must be a code (404), a class (4xx, 5xx) or failed (load failures and statuses of 400 and more)"}
		}
		q.StatusMin, q.StatusMax = n, n
	}
	return q, nil
}

// resourceTypes maps lower-case type filters to CDP's resource types.
var resourceTypes = map[string]string{
	"xhr": "XHR", "fetch": "Fetch", "document": "Document", "stylesheet": "Stylesheet", "script": "Script",
	"image": "Image", "font": "Font", "media": "Media", "websocket": "WebSocket", "eventsource": "EventSource",
	"manifest": "Manifest", "ping": "Ping", "preflight": "Preflight", "texttrack": "TextTrack", "other": "Other",
	"prefetch": "Prefetch", "signedexchange": "SignedExchange", "cspviolationreport": "CSPViolationReport",
}

func resourceType(t string) string {
	if t == "" {
		return ""
	}
	if r, ok := resourceTypes[strings.ToLower(t)]; ok {
		return r
	}
	return t
}

func (f netFilter) keep(r capture.Request) bool { return f.method == "" || r.Method == f.method }

func (o *Observer) networkWaterfall(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, err := o.tab(c)
	if err != nil {
		return nil, err
	}
	pg, err := pagingOf(c)
	if err != nil {
		return nil, err
	}
	f, err := netFilterOf(c)
	if err != nil {
		return nil, err
	}
	fetch := func(after uint64, limit int) capture.Page[capture.Request] {
		q := f.q
		q.After, q.Limit = after, limit
		return o.cfg.Store.Network(tab, q)
	}
	limit := pg.limit
	if pg.summary {
		limit = capture.MaxLimit * 10
	}
	p := collect(fetch, f.keep, func(r capture.Request) uint64 { return r.Seq }, pg.after, limit)
	r := WaterfallResult{TabID: tab, NextCursor: cursor(p.Next), Truncated: p.Truncated, Missed: p.Missed}
	var b strings.Builder
	if pg.summary {
		r.Summary = summarize(p.Entries)
		s := r.Summary
		fmt.Fprintf(&b, "tab %d: %d requests, %d failed, %s", tab, s.Requests, s.Failed, size(s.Bytes))
		for k, n := range s.ByStatus {
			fmt.Fprintf(&b, ", %s %d", k, n)
		}
		if s.Slowest != "" {
			fmt.Fprintf(&b, "; slowest %s", s.Slowest)
		}
		fmt.Fprintf(&b, "; next_cursor %s", r.NextCursor)
		return Result(b.String(), r)
	}
	r.Requests = p.Entries
	for _, q := range o.cfg.Store.Pending(tab) {
		if f.q.URLContains == "" || strings.Contains(strings.ToLower(q.URL), strings.ToLower(f.q.URLContains)) {
			r.Pending = append(r.Pending, q)
		}
	}
	fmt.Fprintf(&b, "tab %d: %d requests", tab, len(r.Requests))
	if len(r.Pending) > 0 {
		fmt.Fprintf(&b, " (+%d in flight)", len(r.Pending))
	}
	for _, q := range r.Requests {
		b.WriteString("\n")
		b.WriteString(requestLine(q))
	}
	for _, q := range r.Pending {
		b.WriteString("\n… ")
		b.WriteString(requestLine(q))
	}
	more(&b, r.Truncated, r.NextCursor)
	return Result(b.String(), r)
}

// requestLine is one request in text: id, method, status, type, url,
// timing, size and initiator.
func requestLine(q capture.Request) string {
	status := strconv.Itoa(q.Status)
	switch {
	case q.Failed && q.Canceled:
		status = "canceled"
	case q.Failed:
		status = "failed:" + q.ErrorText
	case q.Status == 0:
		status = "-"
	}
	s := fmt.Sprintf("[%s] %s %s %s %s %s", q.ID, q.Method, status, strings.ToLower(q.ResourceType), q.URL, ms(q.DurationMs))
	if q.TTFBMs > 0 {
		s += " ttfb " + ms(q.TTFBMs)
	}
	if q.EncodedDataLength > 0 {
		s += " " + size(q.EncodedDataLength)
	}
	if q.InitiatorType != "" {
		s += " ← " + q.InitiatorType
		if q.InitiatorURL != "" {
			s += " " + q.InitiatorURL
		}
	}
	return s
}

func summarize(rs []capture.Request) *NetSummary {
	s := &NetSummary{Requests: len(rs), ByType: map[string]int{}, ByStatus: map[string]int{}}
	var slow capture.Request
	for _, r := range rs {
		s.Bytes += r.EncodedDataLength
		s.ByType[strings.ToLower(r.ResourceType)]++
		switch {
		case r.Failed:
			s.ByStatus["failed"]++
		case r.Status > 0:
			s.ByStatus[fmt.Sprintf("%dxx", r.Status/100)]++
		}
		if r.Failed || r.Status >= 400 {
			s.Failed++
		}
		if r.DurationMs > slow.DurationMs {
			slow = r
		}
	}
	if slow.URL != "" {
		s.Slowest = fmt.Sprintf("%s %s", slow.URL, ms(slow.DurationMs))
	}
	return s
}
