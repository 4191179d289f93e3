// Package terminal is the daemon's side of the side panel's Terminal tab:
// the user's own shell (or CLI agent) in a real PTY, reached only through
// the extension link — panel ⇄ service worker ⇄ native host ⇄ daemon — with
// no listening port of its own. One PTY per terminal view, started on the
// view's first keystroke; closing the view hangs the process up and kills
// it 3 s later if it is still there. Output is credit-controlled: the
// daemon never has more than a window of bytes unacknowledged by the panel,
// so a flood of output neither grows a buffer nor crowds the link.
// Terminal bytes are the user's own keystrokes and their shell's answers:
// they are not redacted and never logged (sizes only). See docs/TERMINAL.md.
package terminal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// The terminal stream's messages on the extension link (docs/PROTOCOL.md,
// "Terminal").
const (
	// Requests, panel → daemon.
	MethodOpen        = "term.open"
	MethodClose       = "term.close"
	MethodSettingsGet = "term.settings.get"
	MethodSettingsSet = "term.settings.set"
	// Events, panel → daemon.
	EventInput  = "term.input"
	EventResize = "term.resize"
	EventAck    = "term.ack"
	// Events, daemon → panel.
	EventOutput  = "term.output"
	EventExit    = "term.exit"
	EventDropped = "term.dropped"
)

// Error codes of the terminal's requests (besides protocol's).
const (
	CodeUnavailable = "terminal_unavailable"
	CodeLimit       = "terminal_limit"
)

// Peer is the link a terminal view was opened on: its output goes there,
// and only that link may write to it or close it.
type Peer interface {
	Notify(ctx context.Context, method string, params any) error
}

// Config configures a Manager. Dir is required.
type Config struct {
	// Dir is the state directory; the settings file terminal.json lives
	// there.
	Dir    string
	Logger *slog.Logger
	// Env is the environment the command starts with (TERM and COLORTERM
	// are set on top); default os.Environ().
	Env []string
	// Start starts a command on a PTY; default: this OS's (nil on an OS
	// without one, where term.open answers terminal_unavailable).
	Start Starter
	// KillAfter is the wait between the hang-up and the kill of a closed
	// view's process; default 3 s.
	KillAfter time.Duration
	// Window is how many output bytes may be unacknowledged by the panel;
	// default 256 KiB.
	Window int
	// MaxViews bounds the views open at once over all links; default 8.
	MaxViews int
}

// Defaults of Config.
const (
	DefaultKillAfter = 3 * time.Second
	DefaultWindow    = 256 << 10
	DefaultMaxViews  = 8
	// MaxChunk bounds the bytes of one term.output (before base64): a
	// frame of about 44 KB, far below native messaging's 1 MiB.
	MaxChunk = 32 << 10
	// MaxQueuedInput bounds the input bytes waiting for the program to
	// read them; more is dropped (term.dropped).
	MaxQueuedInput = 1 << 20
)

// Manager holds the terminal views of every link. Its goroutines (one
// supervisor, reader and writer per running process, and the kill timer of
// a closing one) are owned by it: Close ends every view and waits for them.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	views  map[string]*view
	closed bool
	wg     sync.WaitGroup
}

// New returns a Manager with cfg's defaults filled in.
func New(cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	if cfg.Start == nil {
		cfg.Start = defaultStarter
	}
	if cfg.KillAfter <= 0 {
		cfg.KillAfter = DefaultKillAfter
	}
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	if cfg.MaxViews <= 0 {
		cfg.MaxViews = DefaultMaxViews
	}
	return &Manager{cfg: cfg, log: cfg.Logger, views: map[string]*view{}}
}

// Handles reports whether method belongs to the terminal stream.
func Handles(method string) bool { return strings.HasPrefix(method, "term.") }

// Serve answers the panel's terminal requests arriving on p.
func (m *Manager) Serve(ctx context.Context, p Peer, method string, params json.RawMessage) (any, *protocol.Error) {
	switch method {
	case MethodOpen:
		return m.open(p, params)
	case MethodClose:
		return m.closeView(p, params)
	case MethodSettingsGet:
		return m.settingsGet()
	case MethodSettingsSet:
		return m.settingsSet(params)
	}
	return nil, protocol.Errorf(protocol.CodeUnknownMethod, false, "the daemon has no terminal method %q", method)
}

// Event takes the panel's terminal events arriving on p. It runs on the
// link's read goroutine and never blocks: input is queued for the view's
// writer, credits and sizes are recorded. Events for a view p did not open
// (another link's, or one already closed) are dropped.
func (m *Manager) Event(p Peer, method string, params json.RawMessage) {
	var e struct {
		TermID string `json:"term_id"`
		Data   string `json:"data"`
		Bytes  int    `json:"bytes"`
		Cols   int    `json:"cols"`
		Rows   int    `json:"rows"`
	}
	if err := json.Unmarshal(params, &e); err != nil {
		m.log.Warn("terminal: malformed event dropped", "method", method, "bytes", len(params))
		return
	}
	v := m.lookup(p, e.TermID)
	if v == nil {
		m.log.Debug("terminal: event for no open view", "method", method, "term", e.TermID)
		return
	}
	switch method {
	case EventInput:
		v.input([]byte(e.Data))
	case EventAck:
		v.ack(e.Bytes)
	case EventResize:
		if validSize(e.Cols, e.Rows) {
			v.resize(e.Cols, e.Rows)
		}
	default:
		m.log.Debug("terminal: unknown event dropped", "method", method)
	}
}

// Drop ends every view p opened (its link went away).
func (m *Manager) Drop(p Peer) {
	m.mu.Lock()
	var gone []*view
	for id, v := range m.views {
		if v.peer == p {
			gone = append(gone, v)
			delete(m.views, id)
		}
	}
	m.mu.Unlock()
	for _, v := range gone {
		v.close("link closed")
	}
}

// Close ends every view and waits until each process is reaped and every
// goroutine returned (bounded by KillAfter once the processes are signalled).
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	views := m.views
	m.views = map[string]*view{}
	m.mu.Unlock()
	for _, v := range views {
		v.close("daemon stopping")
	}
	m.wg.Wait()
}

// Views is the number of open views (tests, status).
func (m *Manager) Views() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.views)
}

// Running is the number of views with a process (tests, status).
func (m *Manager) Running() int {
	m.mu.Lock()
	views := make([]*view, 0, len(m.views))
	for _, v := range m.views {
		views = append(views, v)
	}
	m.mu.Unlock()
	n := 0
	for _, v := range views {
		if v.running() {
			n++
		}
	}
	return n
}

// Bytes is the input and output bytes of the open views so far (tests,
// benchmarks; sizes only, never contents).
func (m *Manager) Bytes() (in, out int64) {
	m.mu.Lock()
	views := make([]*view, 0, len(m.views))
	for _, v := range m.views {
		views = append(views, v)
	}
	m.mu.Unlock()
	for _, v := range views {
		v.mu.Lock()
		in, out = in+v.inBytes, out+v.outBytes
		v.mu.Unlock()
	}
	return in, out
}

func (m *Manager) lookup(p Peer, id string) *view {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v := m.views[id]; v != nil && v.peer == p {
		return v
	}
	return nil
}

type openParams struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

func (m *Manager) open(p Peer, raw json.RawMessage) (any, *protocol.Error) {
	if m.cfg.Start == nil {
		return nil, protocol.Errorf(CodeUnavailable, false, "the terminal is not available on %s yet", osName)
	}
	var o openParams
	if len(raw) > 0 && json.Unmarshal(raw, &o) != nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "term.open takes cols and rows")
	}
	if !validSize(o.Cols, o.Rows) {
		o.Cols, o.Rows = 80, 24
	}
	settings, serr := LoadSettings(m.cfg.Dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return nil, protocol.Errorf(protocol.CodeInternal, true, "the daemon is stopping; retry in a moment")
	case len(m.views) >= m.cfg.MaxViews:
		return nil, protocol.Errorf(CodeLimit, false, "%d terminals are open already; close one first", m.cfg.MaxViews)
	}
	v := &view{id: newID(), peer: p, m: m, cols: o.Cols, rows: o.Rows, credit: make(chan struct{}, 1)}
	m.views[v.id] = v
	m.log.Info("terminal opened", "term", v.id)
	out := map[string]any{"term_id": v.id, "max_chunk": MaxChunk, "window": m.cfg.Window}
	if serr != nil {
		out["settings_error"] = serr.Error()
	} else {
		out["command"], out["cwd"] = m.shown(settings)
	}
	return out, nil
}

func (m *Manager) closeView(p Peer, raw json.RawMessage) (any, *protocol.Error) {
	var c struct {
		TermID string `json:"term_id"`
	}
	if json.Unmarshal(raw, &c) != nil || c.TermID == "" {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "term.close needs term_id")
	}
	m.mu.Lock()
	v := m.views[c.TermID]
	if v != nil && v.peer == p {
		delete(m.views, c.TermID)
	} else {
		v = nil
	}
	m.mu.Unlock()
	if v != nil {
		v.close("closed by the panel")
	}
	return map[string]any{}, nil // closing a view that is gone is done
}

func validSize(cols, rows int) bool { return cols >= 2 && cols <= 1000 && rows >= 1 && rows <= 1000 }

func newID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "term_" + hex.EncodeToString(b)
}
