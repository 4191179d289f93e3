package actions

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/target"
)

// Capture is what the engine reads from the capture buffers to report what
// an action changed. *capture.Store implements it.
type Capture interface {
	Timeline(tab int, after uint64, limit int) capture.Page[capture.TimelineEntry]
	OpenDialogs(tab int) []capture.Dialog
	Pending(tab int) []capture.Request
}

var _ Capture = (*capture.Store)(nil)

// Config wires an Engine. Target and Snapshots are required.
type Config struct {
	// Target returns a tab's target (the tab manager's): its CDP session
	// and child sessions (out-of-process iframes), and the tab's action
	// queue and caches, which the target holds and drops when it closes.
	// The same function the Snapshotter uses.
	Target func(tab int) *target.Target
	// Snapshots resolves refs and reports snapshot generations.
	Snapshots *snapshot.Snapshotter
	// Capture, when set, is read for new console errors, exceptions,
	// failed requests, dialogs and requests in flight. Without it the
	// engine watches the CDP events that arrive during an action (which
	// flow only when capture enabled their domains).
	Capture Capture
	// Protected are folders upload refuses besides the credential list
	// (Gasoline's state directory).
	Protected []string
	// Uploads is the private folder where files uploaded by content are
	// written for the browser to read (upload_content.go); "" refuses
	// uploads by content.
	Uploads string
	// MaxResult caps execute_js results and reads (default 64 KiB).
	MaxResult int
	// Redact is the server stage of the redaction gateway: execute_js's
	// result is redacted whole before it is cut to MaxResult, so a cut
	// never splits a secret the gateway would then miss. nil: results are
	// cut with redact.SafeCut only (tests).
	Redact func(string) (string, error)
	// Secrets adds the redaction policy's mask selectors to the built-in
	// sensitive ones (internal/sensitive): reads of those elements answer
	// ••••, and what is typed into them is not echoed.
	Secrets sensitive.Func
	Logger  *slog.Logger
	// Now is the clock of the bounds that are not timeouts (how long a
	// missed click into a frame is tried again); nil: time.Now.
	Now func() time.Time
}

func (e *Engine) now() time.Time {
	if e.cfg.Now != nil {
		return e.cfg.Now()
	}
	return time.Now()
}

// Engine runs interact actions on tabs. Actions on one tab run one at a
// time in arrival order; actions on different tabs run concurrently.
type Engine struct {
	cfg Config
	log *slog.Logger
}

// tabState is one tab's queue and caches, held by its target (tabPart).
// The world cache has its own lock (Invalidate never waits for an
// action); the other fields belong to the action holding q.
type tabState struct {
	q fifo

	mu        sync.Mutex
	worlds    map[worldKey]runtime.ExecutionContextID
	mainFrame map[string]cdproto.FrameID // session → its root frame
	maskKey   string                     // the sensitive selectors the cached worlds were given

	cursor  uint64     // capture timeline cursor: entries already reported
	dialog  DialogInfo // without capture: a dialog an action saw open (Open), until handled
	last    pageState  // url and title the last probe read
	actions int        // actions run, for releasing handles now and then
	shown   bool       // focus emulation was turned on for point targets
}

type worldKey struct {
	session string
	frame   cdproto.FrameID
}

// New returns an Engine. It panics without cfg.Target or cfg.Snapshots.
func New(cfg Config) *Engine {
	if cfg.Target == nil || cfg.Snapshots == nil {
		panic("actions: Config.Target and Config.Snapshots are required")
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = 64 << 10
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Engine{cfg: cfg, log: cfg.Logger}
}

// tabPart is each target's queue and caches.
var tabPart = target.NewPart("action queue", func(tg *target.Target) *tabState {
	return &tabState{q: fifo{name: "tab " + strconv.Itoa(tg.ID())},
		worlds: map[worldKey]runtime.ExecutionContextID{}, mainFrame: map[string]cdproto.FrameID{}}
})

func (e *Engine) tab(id int) *tabState { return tabPart.Of(e.cfg.Target(id)) }

// Lock waits (bounded by ctx, in arrival order) until no action runs on
// the tab and holds it until unlock is called, so that another CDP
// sequence (a snapshot) never interleaves with an action.
func (e *Engine) Lock(ctx context.Context, tab int) (unlock func(), err error) {
	t := e.tab(tab)
	if err := t.q.lock(ctx); err != nil {
		return nil, timeoutErr(err, "waiting for the previous action on tab")
	}
	var once sync.Once
	return func() { once.Do(t.q.unlock) }, nil
}

// Queued is how many actions hold or wait for the tab.
func (e *Engine) Queued(tab int) int { return e.tab(tab).q.queued() }

// Invalidate drops a tab's isolated worlds (its main frame navigated). The
// engine also recovers by itself when a world is gone.
func Invalidate(tg *target.Target) {
	t, ok := tabPart.Peek(tg)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.worlds)
	clear(t.mainFrame)
}

// session is the tab's CDP session, or one of its child sessions.
func (e *Engine) session(tab int, sid string) cdproto.Session {
	t := e.cfg.Target(tab)
	if sid != "" {
		return t.Child(sid)
	}
	return t.Session()
}

// child is the child session of an out-of-process iframe of the tab.
func (e *Engine) child(tab int, frame cdproto.FrameID) (string, bool) {
	return e.cfg.Target(tab).ChildOf(string(frame))
}

// ms converts a duration to whole milliseconds for answers.
func ms(d time.Duration) int64 { return d.Milliseconds() }
