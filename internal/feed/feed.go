// Package feed is capture's intake: a part of every target (a
// target.Listener) that routes the events of the tabs sessions hold into
// the capture store, turns capture on in a tab whose debugger attached
// (Enable: the CDP domains, the vitals recorder) and in its child sessions
// (EnableChild), drops what Chrome replays on a re-attach, and drops a
// tab's buffers when its target closes. The modes that read the buffers
// are internal/observe's.
package feed

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/routine"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// FeedConfig configures a Feed. Store is required.
type FeedConfig struct {
	Store  *capture.Store
	Logger *slog.Logger
}

// Feed is capture as a part of every target (a target.Listener): it routes
// the events of the tabs sessions hold into the capture store — the tab's
// own and those of its child sessions (workers, out-of-process iframes),
// whose domains it enables as they attach — turns capture on in a tab
// whose debugger attached (Enable), and drops the console messages Chrome
// replays when Runtime is enabled again on a re-attached tab, so counts
// stay right. When a target closes, its buffers go (Closed). Its
// goroutines stop with the context given to NewFeed; Wait waits.
type Feed struct {
	cfg FeedConfig
	g   *routine.Group // child-session enables
}

// tabFeed is one tab's replay fence, held by its target (feedPart).
type tabFeed struct {
	maxTS atomic.Uint64 // float64 bits: newest console/exception timestamp seen
	fence atomic.Uint64 // float64 bits: drop console/exceptions at or before this
}

var feedPart = target.NewPart("capture feed", func(*target.Target) *tabFeed { return &tabFeed{} })

// NewFeed returns a Feed whose goroutines run until ctx ends.
func NewFeed(ctx context.Context, cfg FeedConfig) *Feed {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Feed{cfg: cfg, g: routine.NewGroup(ctx)}
}

// Wait waits for the feed's goroutines after its context ended.
func (f *Feed) Wait() { f.g.Wait() }

// Event captures one CDP event of a held tab. It runs on the link's read
// goroutine and does not block.
func (f *Feed) Event(t *target.Target, ev target.Event) {
	if !t.Owned() {
		return
	}
	switch ev.Method {
	case "Target.attachedToTarget":
		f.childAttached(t, ev.Params)
		return
	case "Target.detachedFromTarget":
		return
	case "Runtime.consoleAPICalled", "Runtime.exceptionThrown":
		if f.replayed(t, ev.Params) {
			return
		}
	}
	if ev.Session != "" && strings.HasPrefix(ev.Method, "Page.") {
		return // a child frame's load events are not the tab's
	}
	f.cfg.Store.Ingest(t.ID(), ev.Method, ev.Params)
}

// replayed tracks the newest console timestamp of the tab and reports
// whether this message is at or before the fence (a replay), or older
// than the tab's capture (a tab the user shared: Target.StartCapture).
func (f *Feed) replayed(t *target.Target, params json.RawMessage) bool {
	ts := gjson.GetBytes(params, "timestamp").Float()
	tf := feedPart.Of(t)
	if fence := math.Float64frombits(tf.fence.Load()); fence > 0 && ts > 0 && ts <= fence {
		return true
	}
	if since := t.CaptureStart(); !since.IsZero() && ts > 0 && ts < float64(since.UnixNano())/1e6 {
		return true
	}
	for {
		old := tf.maxTS.Load()
		if ts <= math.Float64frombits(old) || tf.maxTS.CompareAndSwap(old, math.Float64bits(ts)) {
			return false
		}
	}
}

// Attached is told that the debugger attached to the tab anew, before any
// event of the new attachment: console messages Chrome replays when
// Runtime is enabled again are dropped from here on.
func (f *Feed) Attached(t *target.Target) {
	tf := feedPart.Of(t)
	tf.fence.Store(tf.maxTS.Load())
}

// Enable turns capture on in a tab whose debugger just attached
// (internal/observe/enable.go).
func (f *Feed) Enable(ctx context.Context, t *target.Target) error { return Enable(ctx, t.Session()) }

// Closed drops the tab's buffers: its target closed.
func (f *Feed) Closed(t *target.Target) { f.cfg.Store.Forget(t.ID()) }

// childAttached turns capture on in a child session (the target tracks
// it), bounded, until the tab's target closes.
func (f *Feed) childAttached(t *target.Target, params json.RawMessage) {
	sid := gjson.GetBytes(params, "sessionId").Str
	typ := gjson.GetBytes(params, "targetInfo.type").Str
	waiting := gjson.GetBytes(params, "waitingForDebugger").Bool()
	if sid == "" {
		return
	}
	f.g.Go(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		defer context.AfterFunc(t.Context(), cancel)()
		if err := EnableChild(ctx, t.Child(sid), typ, waiting); err != nil {
			f.cfg.Logger.Debug("enabling capture in child session failed", "tab", t.ID(), "type", typ, "err", err)
		}
	})
}
