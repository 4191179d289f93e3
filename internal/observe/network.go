package observe

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// WaterfallResult is observe network_waterfall's answer: finished requests
// in the order they finished, and the ones still in flight, of the scope
// asked for.
type WaterfallResult struct {
	TabID int `json:"tab_id"`
	// Scope is what was answered: page (the requests of the tab's current
	// main-frame document, the default) or all (every captured request).
	// A page scope falls back to all when the current document is unknown;
	// ScopeNote then says so.
	Scope     string `json:"scope"`
	ScopeNote string `json:"scope_note,omitempty"`
	// PageURL is the current document's URL, with scope page.
	PageURL string `json:"page_url,omitempty"`
	// Hidden counts, with scope page, the requests up to next_cursor
	// (finished or in flight) that pass the filters but belong to earlier
	// pages: scope all lists them.
	Hidden     int               `json:"hidden,omitempty"`
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

// The scopes of network_waterfall.
const (
	scopePage = "page" // the tab's current main-frame document (default)
	scopeAll  = "all"  // every captured request
)

// netFilterOf reads network_waterfall's filters: url, method, status (404,
// 4xx, failed) and type (xhr, fetch, document, …).
func netFilterOf(c *mcpserver.Call) (capture.NetworkQuery, error) {
	q, err := statusFilter(c.Str("status"))
	if err != nil {
		return q, err
	}
	q.URLContains, q.ResourceType, q.Method = c.Str("url"), resourceType(c.Str("type")), c.Str("method")
	return q, nil
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

func (o *Observer) networkWaterfall(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	q, err := netFilterOf(c)
	if err != nil {
		return nil, err
	}
	text, r := waterfall(o.cfg.Store, tab, q, pg, c.Str("scope") != scopeAll)
	return mcpserver.PageResult(text, r, new(untrusted.Page).Add(r.PageURL).AddValue(r.Requests).AddValue(r.Pending).AddValue(r.Summary))
}

// waterfall answers network_waterfall for tab: the requests that pass q
// (its After and Limit come from pg), of the current document when page is
// true and it is known, else of the whole capture.
func waterfall(store *capture.Store, tab int, q capture.NetworkQuery, pg paging, page bool) (string, WaterfallResult) {
	r := WaterfallResult{TabID: tab, Scope: scopeAll}
	if page {
		if doc, ok := store.Document(tab); ok {
			q.Doc, r.Scope, r.PageURL = &doc, scopePage, doc.URL
		} else {
			r.ScopeNote = "no navigation of this tab was captured, so its current page is unknown"
		}
	}
	fetch := func(after uint64, limit int) capture.Page[capture.Request] {
		q := q
		q.After, q.Limit = after, limit
		return store.Network(tab, q)
	}
	limit := pg.limit
	if pg.summary {
		limit = capture.MaxLimit * 10
	}
	p := collect(fetch, func(capture.Request) bool { return true }, func(r capture.Request) uint64 { return r.Seq }, pg.after, limit)
	r.NextCursor, r.Truncated, r.Missed = cursor(p.Next), p.Truncated, p.Missed
	if q.Doc != nil {
		q.After = pg.after
		r.Hidden = store.NetworkOutside(tab, q, p.Next)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d, %s: ", tab, scopeText(r))
	if pg.summary {
		r.Summary = summarize(p.Entries)
		s := r.Summary
		fmt.Fprintf(&b, "%d requests, %d failed, %s", s.Requests, s.Failed, size(s.Bytes))
		for _, k := range slices.Sorted(maps.Keys(s.ByStatus)) {
			fmt.Fprintf(&b, ", %s %d", k, s.ByStatus[k])
		}
		if s.Slowest != "" {
			fmt.Fprintf(&b, "; slowest %s", s.Slowest)
		}
		hiddenText(&b, r.Hidden)
		fmt.Fprintf(&b, "; next_cursor %s", r.NextCursor)
		return b.String(), r
	}
	r.Requests = p.Entries
	for _, x := range store.Pending(tab) {
		if !pendingMatch(q, x) {
			continue
		}
		if q.Doc != nil && !q.Doc.Has(x) {
			r.Hidden++
			continue
		}
		r.Pending = append(r.Pending, x)
	}
	fmt.Fprintf(&b, "%d requests", len(r.Requests))
	if len(r.Pending) > 0 {
		fmt.Fprintf(&b, " (+%d in flight)", len(r.Pending))
	}
	hiddenText(&b, r.Hidden)
	for _, x := range r.Requests {
		b.WriteString("\n")
		b.WriteString(requestLine(x))
	}
	for _, x := range r.Pending {
		b.WriteString("\n… ")
		b.WriteString(requestLine(x))
	}
	more(&b, r.Truncated, r.NextCursor)
	return b.String(), r
}

// pendingMatch applies the filters to a request in flight: one has no
// status yet, so a status filter leaves it out.
func pendingMatch(q capture.NetworkQuery, r capture.Request) bool {
	return !q.FailedOnly && q.StatusMin == 0 && q.StatusMax == 0 &&
		strings.Contains(strings.ToLower(r.URL), strings.ToLower(q.URLContains)) &&
		(q.Method == "" || strings.EqualFold(r.Method, q.Method)) &&
		(q.ResourceType == "" || r.ResourceType == q.ResourceType)
}

// scopeText names the scope an answer used.
func scopeText(r WaterfallResult) string {
	switch {
	case r.Scope == scopePage && r.PageURL != "":
		u, long := cut(r.PageURL, 200)
		if long {
			u += "…"
		}
		return "current page (since navigation to " + u + ")"
	case r.Scope == scopePage:
		return "current page (since its navigation)"
	case r.ScopeNote != "":
		return "all captured (" + r.ScopeNote + ")"
	}
	return "all captured"
}

// hiddenText tells what a page scope left out, and how to see it.
func hiddenText(b *strings.Builder, hidden int) {
	switch {
	case hidden == 1:
		b.WriteString("; 1 request of earlier pages hidden (scope:\"all\" shows it)")
	case hidden > 1:
		fmt.Fprintf(b, "; %d requests of earlier pages hidden (scope:\"all\" shows them)", hidden)
	}
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
