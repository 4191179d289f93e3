package observe

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/routine"
)

// FeedConfig configures a Feed. All fields but Logger are required.
type FeedConfig struct {
	Store *capture.Store
	// Owned reports whether a session owns the tab: only owned tabs are
	// captured.
	Owned func(tab int) bool
	// CDP returns the typed session of a tab.
	CDP    func(tab int) *cdp.Session
	Logger *slog.Logger
}

// Feed routes the extension's cdp.event messages into the capture store:
// the tab's own events and those of its child sessions (workers,
// out-of-process iframes), whose domains it enables as they attach. It also
// drops the console messages Chrome replays when Runtime is enabled again
// on a re-attached tab, so counts stay right. Its goroutines stop with the
// context given to NewFeed; Wait waits.
type Feed struct {
	cfg FeedConfig
	g   *routine.Group // child-session enables

	mu   sync.Mutex
	tabs map[int]*tabFeed
}

// tabFeed is one tab's replay fence and child sessions.
type tabFeed struct {
	maxTS    atomic.Uint64 // float64 bits: newest console/exception timestamp seen
	fence    atomic.Uint64 // float64 bits: drop console/exceptions at or before this
	floor    atomic.Uint64 // float64 bits: capture started here (a shared tab); drop what is older
	children []Child       // guarded by Feed.mu
}

// maxChildren bounds the child sessions remembered per tab.
const maxChildren = 64

// NewFeed returns a Feed whose goroutines run until ctx ends.
func NewFeed(ctx context.Context, cfg FeedConfig) *Feed {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Feed{cfg: cfg, g: routine.NewGroup(ctx), tabs: map[int]*tabFeed{}}
}

// Wait waits for the feed's goroutines after its context ended.
func (f *Feed) Wait() { f.g.Wait() }

func (f *Feed) tab(id int) *tabFeed {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tabs[id]
	if t == nil {
		t = &tabFeed{}
		f.tabs[id] = t
	}
	return t
}

// Event handles one cdp.event. It runs on the link's read goroutine and
// does not block.
func (f *Feed) Event(tab int, session, method string, params json.RawMessage) {
	if !f.cfg.Owned(tab) {
		return
	}
	switch method {
	case "Target.attachedToTarget":
		f.childAttached(tab, params)
		return
	case "Target.detachedFromTarget":
		f.childDetached(tab, gjson.GetBytes(params, "sessionId").Str)
		return
	case "Runtime.consoleAPICalled", "Runtime.exceptionThrown":
		if f.replayed(tab, params) {
			return
		}
	}
	if session != "" && strings.HasPrefix(method, "Page.") {
		return // a child frame's load events are not the tab's
	}
	f.cfg.Store.Ingest(tab, method, params)
}

// replayed tracks the newest console timestamp of the tab and reports
// whether this message is at or before the fence (a replay).
func (f *Feed) replayed(tab int, params json.RawMessage) bool {
	ts := gjson.GetBytes(params, "timestamp").Float()
	t := f.tab(tab)
	if fence := math.Float64frombits(t.fence.Load()); fence > 0 && ts > 0 && ts <= fence {
		return true
	}
	if floor := math.Float64frombits(t.floor.Load()); floor > 0 && ts > 0 && ts < floor {
		return true
	}
	for {
		old := t.maxTS.Load()
		if ts <= math.Float64frombits(old) || t.maxTS.CompareAndSwap(old, math.Float64bits(ts)) {
			return false
		}
	}
}

// Attached is told that the debugger attached to tab (cdp.attached),
// before any event of the new attachment: console messages Chrome replays
// when Runtime is enabled again are dropped from here on.
func (f *Feed) Attached(tab int) {
	t := f.tab(tab)
	t.fence.Store(t.maxTS.Load())
	f.mu.Lock()
	t.children = nil // child sessions do not survive a detach
	f.mu.Unlock()
}

// StartAt makes the tab's capture start at since: console messages and
// exceptions older than that (Chrome replays the ones it kept when the
// debugger attaches) are never captured. For a tab the user shares: what
// it logged before it was shared is not the agent's to read.
func (f *Feed) StartAt(tab int, since time.Time) {
	f.tab(tab).floor.Store(math.Float64bits(float64(since.UnixNano()) / 1e6))
}

// Forget drops what the feed knows of a tab that left its session.
func (f *Feed) Forget(tab int) {
	f.mu.Lock()
	delete(f.tabs, tab)
	f.mu.Unlock()
}

// Child is a child session of a tab: a worker or an out-of-process iframe.
type Child struct {
	SessionID string
	Type      string // iframe, worker, service_worker, shared_worker, …
	TargetID  string // an iframe's is its frame id
}

// Children returns the tab's live child sessions, newest first.
func (f *Feed) Children(tab int) []Child {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tabs[tab]
	if t == nil {
		return nil
	}
	out := slices.Clone(t.children)
	slices.Reverse(out)
	return out
}

func (f *Feed) childAttached(tab int, params json.RawMessage) {
	sid := gjson.GetBytes(params, "sessionId").Str
	typ := gjson.GetBytes(params, "targetInfo.type").Str
	target := gjson.GetBytes(params, "targetInfo.targetId").Str
	waiting := gjson.GetBytes(params, "waitingForDebugger").Bool()
	if sid == "" {
		return
	}
	started := f.g.Go(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := EnableChild(ctx, f.cfg.CDP(tab).Child(sid), typ, waiting); err != nil {
			f.cfg.Logger.Debug("enabling capture in child session failed", "tab", tab, "type", typ, "err", err)
		}
	})
	if !started {
		return // the feed has stopped
	}
	t := f.tab(tab)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(t.children) == maxChildren {
		t.children = slices.Delete(t.children, 0, 1)
	}
	t.children = append(t.children, Child{SessionID: sid, Type: typ, TargetID: target})
}

func (f *Feed) childDetached(tab int, sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t := f.tabs[tab]; t != nil {
		t.children = slices.DeleteFunc(t.children, func(c Child) bool { return c.SessionID == sid })
	}
}
