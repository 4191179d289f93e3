package capture

import (
	"sort"
	"strings"
	"time"
)

// Result sizes, as the observe modes document them.
const (
	DefaultLimit = 100  // entries per page when the caller gives no limit
	MaxLimit     = 1000 // entries per page at most
)

func clampLimit(n int) int {
	if n <= 0 {
		return DefaultLimit
	}
	return min(n, MaxLimit)
}

// Page is one page of entries after a cursor, oldest first.
type Page[T any] struct {
	Entries []T `json:"entries"`
	// Next is the cursor for the following call (pass it as After).
	Next uint64 `json:"next_cursor"`
	// Truncated reports that more matching entries follow Next.
	Truncated bool `json:"truncated,omitempty"`
	// Missed counts entries after the cursor that were evicted before
	// they were read.
	Missed uint64 `json:"missed,omitempty"`
}

func pageOf[T Sized[T]](r *Ring[T], after uint64, limit int, keep func(T) bool) Page[T] {
	e, next, tr, missed := r.Scan(after, clampLimit(limit), keep)
	return Page[T]{Entries: e, Next: next, Truncated: tr, Missed: missed}
}

// LogQuery selects console entries.
type LogQuery struct {
	Level string // "" for all, else error, warning, info, debug or log
	Text  string // case-insensitive substring of the text; "" for all
	After uint64 // cursor: entries with a larger Seq
	Limit int    // 0 for DefaultLimit; at most MaxLimit
}

// Logs returns the tab's console entries that match q.
func (s *Store) Logs(tabID int, q LogQuery) Page[ConsoleEntry] {
	t := s.get(tabID)
	if t == nil {
		return Page[ConsoleEntry]{}
	}
	var keep func(ConsoleEntry) bool
	if q.Level != "" || q.Text != "" {
		keep = func(e ConsoleEntry) bool {
			return (q.Level == "" || e.Level == q.Level) && containsFold(e.Text, q.Text)
		}
	}
	return pageOf(t.console, q.After, q.Limit, keep)
}

// Exceptions returns the tab's uncaught exceptions after the cursor.
func (s *Store) Exceptions(tabID int, after uint64, limit int) Page[Exception] {
	if t := s.get(tabID); t != nil {
		return pageOf(t.exceptions, after, limit, nil)
	}
	return Page[Exception]{}
}

// Errors returns the tab's console errors and uncaught exceptions grouped by
// message, in the order each was first seen.
func (s *Store) Errors(tabID int) []ErrorGroup {
	t := s.get(tabID)
	if t == nil {
		return nil
	}
	t.mu.Lock()
	out := make([]ErrorGroup, 0, len(t.errors))
	for _, g := range t.errors {
		out = append(out, *g)
	}
	t.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].first < out[j].first })
	return out
}

// NetworkQuery selects finished requests.
type NetworkQuery struct {
	After uint64 // cursor: requests with a larger Seq
	Limit int    // 0 for DefaultLimit; at most MaxLimit
	// FailedOnly keeps requests that failed to load or got a status of
	// 400 or more.
	FailedOnly bool
	// StatusMin and StatusMax bound the status (0: unbounded); a bound
	// excludes requests that got no response.
	StatusMin, StatusMax int

	URLContains  string // case-insensitive substring of the URL
	ResourceType string // e.g. Fetch, XHR, Document; "" for all
	Method       string // HTTP method, case-insensitive; "" for all

	// Doc, when set, keeps only the requests of that document
	// ([Document.Has]; see [Store.Document]); nil keeps every captured
	// request.
	Doc *Document
}

// filters reports whether r passes q's filters other than Doc.
func (q NetworkQuery) filters(r Request) bool {
	switch {
	case q.FailedOnly && !r.Failed && r.Status < 400,
		q.StatusMin > 0 && r.Status < q.StatusMin,
		q.StatusMax > 0 && (r.Status > q.StatusMax || r.Status == 0),
		q.ResourceType != "" && r.ResourceType != q.ResourceType,
		q.Method != "" && !strings.EqualFold(r.Method, q.Method):
		return false
	}
	return containsFold(r.URL, q.URLContains)
}

func (q NetworkQuery) match(r Request) bool {
	return q.filters(r) && (q.Doc == nil || q.Doc.Has(r))
}

// Network returns the tab's finished requests (loaded or failed) that match
// q, in the order they finished. Requests still in flight are in
// [Store.Pending].
func (s *Store) Network(tabID int, q NetworkQuery) Page[Request] {
	if t := s.get(tabID); t != nil {
		return pageOf(t.network, q.After, q.Limit, q.match)
	}
	return Page[Request]{}
}

// NetworkOutside counts the tab's finished requests after q.After and up to
// the cursor through that pass q's filters but are not of q.Doc: what a
// query scoped to the document left out of the page it answered (pass its
// Next as through). Limit is ignored; it is 0 when q.Doc is nil.
func (s *Store) NetworkOutside(tabID int, q NetworkQuery, through uint64) int {
	t := s.get(tabID)
	if t == nil || q.Doc == nil {
		return 0
	}
	n := 0
	t.network.Scan(q.After, 0, func(r Request) bool {
		if r.Seq <= through && q.filters(r) && !q.Doc.Has(r) {
			n++
		}
		return false
	})
	return n
}

// Pending returns the tab's requests still in flight, oldest first, marked
// Pending and passed through the Redactor (those it refuses are left out).
func (s *Store) Pending(tabID int) []Request {
	t := s.get(tabID)
	if t == nil {
		return nil
	}
	t.mu.Lock()
	recs := make([]Request, 0, len(t.open))
	for e := t.openFIFO.Front(); e != nil; e = e.Next() {
		recs = append(recs, e.Value.(*openRequest).rec)
	}
	t.mu.Unlock()
	out := recs[:0]
	for _, r := range recs {
		r.Pending = true
		if r, ok := redactAs(t.opts.Redactor, kNetwork, r); ok {
			out = append(out, r)
		}
	}
	return out
}

// WebSocketQuery selects WebSocket events.
type WebSocketQuery struct {
	After       uint64 // cursor: events with a larger Seq
	Limit       int    // 0 for DefaultLimit; at most MaxLimit
	SocketID    string // "" for all sockets
	URLContains string // case-insensitive substring of the socket URL
	Direction   string // "sent" or "received" keeps those frames only
}

func (q WebSocketQuery) match(e WebSocketEvent) bool {
	return (q.SocketID == "" || e.SocketID == q.SocketID) &&
		(q.Direction == "" || e.Dir == q.Direction) &&
		containsFold(e.URL, q.URLContains)
}

// WebSockets returns the tab's WebSocket events that match q.
func (s *Store) WebSockets(tabID int, q WebSocketQuery) Page[WebSocketEvent] {
	if t := s.get(tabID); t != nil {
		return pageOf(t.websockets, q.After, q.Limit, q.match)
	}
	return Page[WebSocketEvent]{}
}

// Dialogs returns the tab's closed dialogs after the cursor.
func (s *Store) Dialogs(tabID int, after uint64, limit int) Page[Dialog] {
	if t := s.get(tabID); t != nil {
		return pageOf(t.dialogs, after, limit, nil)
	}
	return Page[Dialog]{}
}

// OpenDialogs returns the dialogs shown in the tab and not yet closed,
// passed through the Redactor (those it refuses are left out). An open
// dialog blocks the page's script until it is handled.
func (s *Store) OpenDialogs(tabID int) []Dialog {
	t := s.get(tabID)
	if t == nil {
		return nil
	}
	t.mu.Lock()
	ds := make([]Dialog, 0, len(t.openDialogs))
	for _, od := range t.openDialogs {
		ds = append(ds, od.d)
	}
	t.mu.Unlock()
	out := ds[:0]
	for _, d := range ds {
		if d, ok := redactAs(t.opts.Redactor, kDialog, d); ok {
			out = append(out, d)
		}
	}
	return out
}

// Navigations returns the tab's main-frame navigations and load milestones
// after the cursor.
func (s *Store) Navigations(tabID int, after uint64, limit int) Page[Navigation] {
	if t := s.get(tabID); t != nil {
		return pageOf(t.navigations, after, limit, nil)
	}
	return Page[Navigation]{}
}

// TimelineEntry is one entry of any kind; exactly one pointer is set.
type TimelineEntry struct {
	Order      uint64          `json:"order"`
	Kind       string          `json:"kind"`
	Time       time.Time       `json:"time"`
	Console    *ConsoleEntry   `json:"console,omitempty"`
	Exception  *Exception      `json:"exception,omitempty"`
	Request    *Request        `json:"request,omitempty"`
	WebSocket  *WebSocketEvent `json:"websocket,omitempty"`
	Dialog     *Dialog         `json:"dialog,omitempty"`
	Navigation *Navigation     `json:"navigation,omitempty"`
	Action     *Action         `json:"action,omitempty"`
}
