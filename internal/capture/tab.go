package capture

import (
	"container/list"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// kind indexes the per-kind counters of a tab.
type kind int

const (
	kConsole kind = iota
	kException
	kNetwork
	kWebSocket
	kDialog
	kNavigation
	kAction
	numKinds
)

var kindNames = [numKinds]string{KindConsole, KindException, KindNetwork, KindWebSocket, KindDialog, KindNavigation, KindAction}

// tab holds one tab's buffers and the state that merges its events.
type tab struct {
	opts    *Options // the store's, read-only
	lastUse atomic.Uint64

	console     *Ring[ConsoleEntry]
	exceptions  *Ring[Exception]
	network     *Ring[Request]
	websockets  *Ring[WebSocketEvent]
	dialogs     *Ring[Dialog]
	navigations *Ring[Navigation]
	actions     *Ring[Action]
	blocked     [numKinds]atomic.Uint64

	mu          sync.Mutex // guards the fields below
	order       uint64     // Order of the newest stored entry
	open        map[string]*openRequest
	openFIFO    *list.List // of *openRequest, oldest first
	openEvicted uint64
	sockets     map[string]string // WebSocket id → URL
	socketFIFO  []string
	openDialogs []openDialog
	docStarts   [8]docStart // recent document requests, a small ring
	docNext     int
	pageURL     string  // main frame URL after the last navigation
	navStart    float64 // monotonic start of the last navigation; 0 unknown
	wallOffset  float64 // wall seconds minus monotonic seconds; 0 unknown
	errors      map[string]*ErrorGroup
	cleared     []uint64 // orders of entries Store.Clear dropped, sorted (clear.go)

	// The current page (see [Document]).
	sent      uint64              // Network.requestWillBeSent events seen
	mainFrame string              // the main frame's id, from its last navigation
	doc       *Document           // nil before a main-frame navigation; replaced, never changed
	docFrames map[string]struct{} // loaderIds of doc's child frames' documents
}

// docStart remembers when a document request (requestId == loaderId) began.
type docStart struct {
	loaderID string
	mono     float64
	sent     uint64 // the request's send count (Request.sent)
}

func newTab(o *Options) *tab {
	return &tab{
		opts:        o,
		console:     NewRing[ConsoleEntry](o.Console.MaxEntries, o.Console.MaxBytes),
		exceptions:  NewRing[Exception](o.Exceptions.MaxEntries, o.Exceptions.MaxBytes),
		network:     NewRing[Request](o.Network.MaxEntries, o.Network.MaxBytes),
		websockets:  NewRing[WebSocketEvent](o.WebSockets.MaxEntries, o.WebSockets.MaxBytes),
		dialogs:     NewRing[Dialog](o.Dialogs.MaxEntries, o.Dialogs.MaxBytes),
		navigations: NewRing[Navigation](o.Navigations.MaxEntries, o.Navigations.MaxBytes),
		actions:     NewRing[Action](o.Actions.MaxEntries, o.Actions.MaxBytes),
		open:        make(map[string]*openRequest),
		openFIFO:    list.New(),
		sockets:     make(map[string]string),
		docFrames:   make(map[string]struct{}),
		errors:      make(map[string]*ErrorGroup),
	}
}

// store redacts v, stamps the next tab-wide order and appends it to r. It
// reports false (and counts the entry as blocked) when redaction refused it.
func store[T entry[T]](t *tab, r *Ring[T], k kind, v T) (T, bool) {
	v, ok := redactAs(t.opts.Redactor, k, v)
	if !ok {
		t.blocked[k].Add(1)
		return v, false
	}
	t.mu.Lock()
	t.order++
	v = v.withOrder(t.order)
	v = v.WithSeq(r.Append(v))
	t.mu.Unlock()
	return v, true
}

// redactAs applies the redactor to v; ok is false when it fails, panics or
// returns another type.
func redactAs[T any](r Redactor, k kind, v T) (out T, ok bool) {
	if r == nil {
		return v, true
	}
	defer func() {
		if recover() != nil {
			out, ok = *new(T), false
		}
	}()
	res, err := r(kindNames[k], v)
	if err != nil {
		return out, false
	}
	out, ok = res.(T)
	return out, ok
}

// wallFromMono converts a CDP monotonic timestamp (seconds) to wall time using
// the offset learned from Network.requestWillBeSent, or returns now when no
// offset is known yet. Called with t.mu held.
func (t *tab) wallFromMono(mono float64) time.Time {
	if t.wallOffset != 0 && mono > 0 {
		if tm := secTime(t.wallOffset + mono); !tm.IsZero() {
			return tm
		}
	}
	return t.opts.Now()
}

// secTime converts seconds since the epoch to a time, or zero when out of
// range.
func secTime(s float64) time.Time {
	if s <= 0 || s > 1e11 || math.IsNaN(s) {
		return time.Time{}
	}
	return time.UnixMicro(int64(s * 1e6))
}

// msTime converts Runtime.Timestamp (milliseconds since the epoch) to a time,
// falling back to now when it is missing or out of range.
func (t *tab) msTime(ms float64) time.Time {
	if tm := secTime(ms / 1000); !tm.IsZero() {
		return tm
	}
	return t.opts.Now()
}

// roundMs rounds a duration in milliseconds to microseconds; negative
// (clock skew, unknown) becomes 0.
func roundMs(ms float64) float64 {
	if ms <= 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return 0
	}
	return math.Round(ms*1000) / 1000
}

// ErrorGroup is the console errors or uncaught exceptions of one tab that
// share a message (its first line), counted since the tab's buffers were
// created. Groups are kept apart from the rings, so their counts survive
// eviction; at most MaxErrorGroups are kept, the least recently seen dropped.
type ErrorGroup struct {
	Kind      string    `json:"kind"` // console or exception
	Message   string    `json:"message"`
	Count     int       `json:"count"`
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// URL, Line, Column and Stack are those of the latest occurrence.
	URL    string  `json:"url,omitempty"`
	Line   int     `json:"line,omitempty"`
	Column int     `json:"column,omitempty"`
	Stack  []Frame `json:"stack,omitempty"`
	// LastOrder is the timeline cursor of the latest occurrence.
	LastOrder uint64 `json:"last_order"`

	first uint64 // tab order of the first occurrence, for sorting
	seen  uint64 // tab order of the latest occurrence, for eviction
}

// maxGroupMessage bounds the message that keys an error group.
const maxGroupMessage = 1024

// noteError counts one error occurrence in its group, dropping the least
// recently seen group when at MaxErrorGroups.
func (t *tab) noteError(k kind, msg string, at time.Time, url string, line, col int, stack []Frame, order uint64) {
	msg, _ = truncate(firstLine(msg), maxGroupMessage)
	key := kindNames[k] + "\x00" + msg
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.errors[key]
	if g == nil {
		if len(t.errors) >= t.opts.MaxErrorGroups {
			t.dropStalestGroup()
		}
		msg = strings.Clone(msg) // do not pin the entry's whole text
		g = &ErrorGroup{Kind: kindNames[k], Message: msg, FirstSeen: at, first: order}
		t.errors[key] = g
	}
	g.Count++
	g.LastSeen, g.URL, g.Line, g.Column, g.Stack, g.LastOrder, g.seen = at, url, line, col, stack, order, order
}

// dropStalestGroup removes the group seen least recently. Called with t.mu
// held.
func (t *tab) dropStalestGroup() {
	var stalest string
	var seen uint64 = math.MaxUint64
	for k, g := range t.errors {
		if g.seen < seen {
			stalest, seen = k, g.seen
		}
	}
	delete(t.errors, stalest)
}

// addStats adds the tab's counters to st.
func (t *tab) addStats(st *Stats) {
	add := func(k kind, rs RingStats) {
		ks := st.Kinds[kindNames[k]]
		ks.Entries += rs.Entries
		ks.Bytes += rs.Bytes
		ks.Evicted += rs.Evicted
		ks.Blocked += t.blocked[k].Load()
		st.Kinds[kindNames[k]] = ks
	}
	add(kConsole, t.console.Stats())
	add(kException, t.exceptions.Stats())
	add(kNetwork, t.network.Stats())
	add(kWebSocket, t.websockets.Stats())
	add(kDialog, t.dialogs.Stats())
	add(kNavigation, t.navigations.Stats())
	add(kAction, t.actions.Stats())
	t.mu.Lock()
	st.OpenRequests += len(t.open)
	st.OpenEvicted += t.openEvicted
	st.ErrorGroups += len(t.errors)
	t.mu.Unlock()
}
