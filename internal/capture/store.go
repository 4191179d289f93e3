package capture

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Redactor rewrites an entry before it is stored; server-stage redaction sits
// here. kind is one of the Kind constants and v the entry by value (a
// ConsoleEntry for KindConsole, a Request for KindNetwork, …). It returns the
// entry to store, of the same type. An error, a value of another type or a
// panic drops the entry and counts it as blocked: capture fails closed. It is
// also applied to the copies that [Store.Pending] and [Store.OpenDialogs]
// return. It may run on several goroutines at once and must not call back
// into the Store.
type Redactor func(kind string, v any) (any, error)

// Limits bounds one buffer of one tab. Zero fields take the default.
type Limits struct {
	MaxEntries int   // entries kept
	MaxBytes   int64 // approximate bytes kept (see [Sized])
}

// Options configures a [Store]. Zero fields take the documented default;
// negative ones are rejected. Limits apply per tab.
type Options struct {
	Console     Limits // default 5,000 entries / 8 MiB
	Exceptions  Limits // default 1,000 entries / 2 MiB
	Network     Limits // default 1,000 requests / 8 MiB
	WebSockets  Limits // default 2,000 events / 4 MiB
	Dialogs     Limits // default 200 dialogs / 1 MiB
	Navigations Limits // default 500 events / 1 MiB
	Actions     Limits // default 1,000 actions / 1 MiB

	MaxOpenRequests int // requests in flight per tab; default 1,000, oldest dropped first
	MaxOpenSockets  int // WebSockets whose URL is remembered per tab; default 64
	MaxErrorGroups  int // distinct error messages per tab; default 500, least recent dropped
	MaxTabs         int // tabs with buffers; default 32, least recently active dropped
	// MaxBytes bounds the approximate bytes of entries kept across all
	// tabs and kinds; default 64 MiB, the least recently active tab's
	// largest buffer giving up its oldest entries first (budget.go).
	MaxBytes int64

	MaxTextBytes    int // console text and exception message; default 16 KiB
	MaxURLBytes     int // any URL (data: URLs can be huge); default 4 KiB
	MaxPayloadBytes int // WebSocket payload kept; default 4 KiB
	MaxStackFrames  int // frames kept per stack; default 16

	// Redactor is applied to every entry before it is stored; nil stores
	// entries unchanged.
	Redactor Redactor
	// Now is the clock for events that carry no timestamp; default time.Now.
	Now func() time.Time
}

const (
	kib = 1 << 10
	mib = 1 << 20
)

// withDefaults returns a copy of o with defaults filled, or an error naming a
// negative or contradictory field.
func (o *Options) withDefaults() (Options, error) {
	var c Options
	if o != nil {
		c = *o
	}
	lims := []struct {
		name string
		l    *Limits
		def  Limits
	}{
		{"Console", &c.Console, Limits{5000, 8 * mib}},
		{"Exceptions", &c.Exceptions, Limits{1000, 2 * mib}},
		{"Network", &c.Network, Limits{1000, 8 * mib}},
		{"WebSockets", &c.WebSockets, Limits{2000, 4 * mib}},
		{"Dialogs", &c.Dialogs, Limits{200, 1 * mib}},
		{"Navigations", &c.Navigations, Limits{500, 1 * mib}},
		{"Actions", &c.Actions, Limits{1000, 1 * mib}},
	}
	for _, l := range lims {
		if l.l.MaxEntries < 0 || l.l.MaxBytes < 0 {
			return c, fmt.Errorf("capture: Options.%s has a negative limit", l.name)
		}
		l.l.MaxEntries = cmpOr(l.l.MaxEntries, l.def.MaxEntries)
		l.l.MaxBytes = cmpOr(l.l.MaxBytes, l.def.MaxBytes)
	}
	ints := []struct {
		name string
		v    *int
		def  int
	}{
		{"MaxOpenRequests", &c.MaxOpenRequests, 1000},
		{"MaxOpenSockets", &c.MaxOpenSockets, 64},
		{"MaxErrorGroups", &c.MaxErrorGroups, 500},
		{"MaxTabs", &c.MaxTabs, 32},
		{"MaxTextBytes", &c.MaxTextBytes, 16 * kib},
		{"MaxURLBytes", &c.MaxURLBytes, 4 * kib},
		{"MaxPayloadBytes", &c.MaxPayloadBytes, 4 * kib},
		{"MaxStackFrames", &c.MaxStackFrames, 16},
	}
	for _, f := range ints {
		if *f.v < 0 {
			return c, fmt.Errorf("capture: Options.%s is negative", f.name)
		}
		*f.v = cmpOr(*f.v, f.def)
	}
	if c.MaxBytes < 0 {
		return c, fmt.Errorf("capture: Options.MaxBytes is negative")
	}
	c.MaxBytes = cmpOr(c.MaxBytes, 64*mib)
	if int64(c.MaxTextBytes) > c.Console.MaxBytes {
		return c, fmt.Errorf("capture: Options.MaxTextBytes %d exceeds Console.MaxBytes %d", c.MaxTextBytes, c.Console.MaxBytes)
	}
	if int64(c.MaxPayloadBytes) > c.WebSockets.MaxBytes {
		return c, fmt.Errorf("capture: Options.MaxPayloadBytes %d exceeds WebSockets.MaxBytes %d", c.MaxPayloadBytes, c.WebSockets.MaxBytes)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

func cmpOr[T int | int64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Store holds the capture buffers of every tab, filled by [Store.Ingest]. It
// is safe for concurrent use and starts no goroutines.
type Store struct {
	opts Options

	mu   sync.Mutex
	tabs map[int]*tab

	activity    atomic.Uint64 // ticks once per ingested event; orders tabs by recent use
	malformed   atomic.Uint64
	tabsEvicted atomic.Uint64

	bytes    atomic.Int64  // bytes of entries kept, every tab (Options.MaxBytes)
	trimmed  atomic.Uint64 // entries evicted by MaxBytes
	trimming sync.Mutex    // one trim at a time (budget.go)
}

// NewStore returns an empty store configured by opts (nil: all defaults).
func NewStore(opts *Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Store{opts: o, tabs: make(map[int]*tab)}, nil
}

// Ingest records one CDP event of a tab, as the relay's cdp.event carries it.
// Methods the store does not capture are ignored without decoding. Params
// that do not decode are counted in [Stats].Malformed and dropped.
func (s *Store) Ingest(tabID int, method string, params json.RawMessage) {
	h := handlerFor(method)
	if h == nil {
		return
	}
	if err := h(s.tabFor(tabID), params); err != nil {
		s.malformed.Add(1)
	}
	s.trim()
}

// handlerFor returns the decoder of a captured CDP method, or nil.
func handlerFor(method string) func(*tab, []byte) error {
	switch method {
	case "Runtime.consoleAPICalled":
		return (*tab).onConsole
	case "Runtime.exceptionThrown":
		return (*tab).onException
	case "Network.requestWillBeSent":
		return (*tab).onRequest
	case "Network.responseReceived":
		return (*tab).onResponse
	case "Network.loadingFinished":
		return (*tab).onFinished
	case "Network.loadingFailed":
		return (*tab).onFailed
	case "Network.webSocketCreated":
		return (*tab).onSocketCreated
	case "Network.webSocketFrameSent":
		return (*tab).onFrameSent
	case "Network.webSocketFrameReceived":
		return (*tab).onFrameReceived
	case "Network.webSocketFrameError":
		return (*tab).onFrameError
	case "Network.webSocketClosed":
		return (*tab).onSocketClosed
	case "Page.javascriptDialogOpening":
		return (*tab).onDialogOpening
	case "Page.javascriptDialogClosed":
		return (*tab).onDialogClosed
	case "Page.frameNavigated":
		return (*tab).onFrameNavigated
	case "Page.domContentEventFired":
		return (*tab).onDOMContent
	case "Page.loadEventFired":
		return (*tab).onLoad
	case "Page.navigatedWithinDocument":
		return (*tab).onSameDocument
	}
	return nil
}

// tabFor returns the tab's buffers, creating them (and dropping the least
// recently active tab when at MaxTabs) on first use.
func (s *Store) tabFor(id int) *tab {
	tick := s.activity.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tabs[id]
	if t == nil {
		if len(s.tabs) >= s.opts.MaxTabs {
			s.evictIdleTab()
		}
		t = newTab(&s.opts)
		t.countIn(&s.bytes)
		s.tabs[id] = t
	}
	t.lastUse.Store(tick)
	return t
}

// evictIdleTab drops the tab that ingested least recently. Called with s.mu
// held.
func (s *Store) evictIdleTab() {
	var oldest int
	var oldestUse uint64
	first := true
	for id, t := range s.tabs {
		if u := t.lastUse.Load(); first || u < oldestUse {
			oldest, oldestUse, first = id, u, false
		}
	}
	if t := s.tabs[oldest]; t != nil {
		t.detach()
	}
	delete(s.tabs, oldest)
	s.tabsEvicted.Add(1)
}

// get returns the tab's buffers, or nil when none are held.
func (s *Store) get(id int) *tab {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tabs[id]
}

// Forget drops a tab's buffers, e.g. when the tab closes. An event that
// arrives for the tab afterwards starts new buffers, whose cursors restart:
// a query treats a cursor they never issued as 0.
func (s *Store) Forget(tabID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.tabs[tabID]; t != nil {
		t.detach()
	}
	delete(s.tabs, tabID)
}

// Tabs returns the ids of the tabs with buffers, sorted.
func (s *Store) Tabs() []int {
	s.mu.Lock()
	ids := make([]int, 0, len(s.tabs))
	for id := range s.tabs {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	sort.Ints(ids)
	return ids
}

// KindStats counts one kind of entry.
type KindStats struct {
	Entries int    `json:"entries"` // kept now
	Bytes   int64  `json:"bytes"`   // approximate bytes kept now
	Evicted uint64 `json:"evicted"` // stored, then evicted by a limit
	Blocked uint64 `json:"blocked"` // dropped by the Redactor
}

// Stats counts what a store (or one tab) holds.
type Stats struct {
	Tabs         int                  `json:"tabs"`
	Kinds        map[string]KindStats `json:"kinds"`
	OpenRequests int                  `json:"open_requests"`
	OpenEvicted  uint64               `json:"open_evicted"` // in-flight requests dropped at MaxOpenRequests
	ErrorGroups  int                  `json:"error_groups"`
	Malformed    uint64               `json:"malformed"`    // events whose params did not decode (store-wide)
	TabsEvicted  uint64               `json:"tabs_evicted"` // tabs dropped at MaxTabs (store-wide)
}

// Stats sums the counters of the tabs held now, plus the store-wide ones.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	tabs := make([]*tab, 0, len(s.tabs))
	for _, t := range s.tabs {
		tabs = append(tabs, t)
	}
	s.mu.Unlock()
	st := Stats{Tabs: len(tabs), Kinds: make(map[string]KindStats, numKinds)}
	for _, t := range tabs {
		t.addStats(&st)
	}
	st.Malformed = s.malformed.Load()
	st.TabsEvicted = s.tabsEvicted.Load()
	return st
}

// TabStats returns one tab's counters; ok is false when the store holds no
// buffers for it.
func (s *Store) TabStats(tabID int) (st Stats, ok bool) {
	t := s.get(tabID)
	if t == nil {
		return Stats{}, false
	}
	st = Stats{Tabs: 1, Kinds: make(map[string]KindStats, numKinds)}
	t.addStats(&st)
	st.Malformed = s.malformed.Load()
	st.TabsEvicted = s.tabsEvicted.Load()
	return st, true
}
