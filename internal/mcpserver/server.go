// Package mcpserver is Gasoline's MCP surface in the daemon: the one
// *mcp.Server (go-sdk) that both transports share — streamable HTTP on /mcp
// and the line link (link.go) that the stdio relay (gasoline-mcp,
// `gasoline-host --mcp`) relays stdio onto —
// the dispatcher that validates, classifies and runs every tool call, and
// the session manager behind async results.
package mcpserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/routine"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Options configures a Server. Version, Gate and Redact are required (a
// server that could run without its approval gate or its redaction
// gateway would fail open); the rest have defaults.
type Options struct {
	// Version is the daemon's version (serverInfo.version, health).
	Version string
	// Dir is the state directory; doctor checks that it is writable.
	Dir string
	// Daemon reports the daemon's own state for health and doctor.
	// Default: this process, no extension.
	Daemon func() Daemon
	// Gate decides a call of a mutating or sensitive mode: the daemon
	// passes the approval engine's (policy first, then the user).
	Gate func(ctx context.Context, c *Call) *tools.Error
	// Scope, when set, is asked first about every call: a remote agent's
	// session may use only the tools, modes and sites its credential
	// names (internal/remote). nil lets the call go on to the gate.
	Scope func(ctx context.Context, c *Call) *tools.Error
	// Audit, when set, records every tool call (never its arguments or
	// result): session, "tool.mode", class, duration, whether it failed.
	Audit func(sessionID, key string, class tools.Class, d time.Duration, failed bool) error
	// Redact is the server stage of the redaction gateway for results:
	// every tool result (text and structured content, errors included)
	// passes it in dispatch before it leaves; an error blocks the result
	// with redaction_failed.
	Redact Redactor
	// MaskSelectors, when set, returns the user's extra screenshot mask
	// selectors (Call.MaskSelectors).
	MaskSelectors func() ([]string, error)
	// Classifier finds instruction-like passages in page text (fence.go).
	// Default: untrusted.Rules.
	Classifier untrusted.Classifier
	// Sessions configures the session manager (TTL, result retention, clock).
	Sessions session.Options
	Logger   *slog.Logger

	// Bounds of the relay's link, for tests: a line (default MaxMessage)
	// and the wait for a hello (default mcpline.HelloTimeout).
	linkMax   int
	linkHello time.Duration
}

// Daemon is what the daemon reports about itself.
type Daemon struct {
	PID       int
	StartedAt time.Time
	Extension bool // a browser extension is connected
	// Browsers lists the connected browsers (configure health).
	Browsers any
	// Memory is the daemon's memory (configure health): live heap and
	// runtime figures, and the stores holding anything.
	Memory any
}

// Server is the daemon's MCP server. Create it with New.
type Server struct {
	opts     Options
	log      *slog.Logger
	mcp      *mcp.Server
	sessions *session.Manager
	started  time.Time
	http     http.Handler
	// incarnation names this daemon run in SSE event ids (restart.go).
	incarnation string
	revive      reviver // HTTP sessions taken up again after a restart
	// events are the SSE events HTTP clients may ask again (events.go).
	events *eventStore

	mu       sync.Mutex // guards handlers and watches after New
	handlers map[string]handler
	watches  []Watcher

	watchers *routine.Group // goroutines awaiting HTTP sessions' end, and handed-off commands (keep.go)
	done     chan struct{}
	ctxDone  <-chan struct{} // New's ctx ended: the daemon stops
	keepMu   sync.Mutex      // one write to the pending folder at a time
}

// Call is a validated call as a Handler sees it: its mode's definition and
// its typed arguments (tools.Call), and the session it runs for.
type Call struct {
	*tools.Call
	Session *session.Session
	srv     *Server
	// plan is what the gate found out about the call for its handler
	// (SetPlan): a call runs on one goroutine at a time.
	plan any
}

// SetPlan keeps what the approval gate found out about the call (a page
// tool's definition, as the user was shown it) for the call's handler.
func (c *Call) SetPlan(v any) { c.plan = v }

// Plan is what the gate kept with SetPlan (nil when it kept nothing).
func (c *Call) Plan() any { return c.plan }

// Handler implements one mode. It returns a JSON object (a struct or map)
// for structuredContent, a ready *mcp.CallToolResult, or an error: a
// *tools.Error becomes a structured tool error, any other error an
// internal one.
type Handler func(ctx context.Context, c *Call) (any, error)

type handler struct {
	run    Handler
	inline bool // answer on the request goroutine; no command record
	quick  bool // inline unless the call asks for background (HandleQuick)
}

// New builds the server. Its goroutines stop when ctx ends; Wait waits
// for them.
func New(ctx context.Context, opts *Options) (*Server, error) {
	switch {
	case opts == nil || opts.Version == "":
		return nil, errors.New("mcpserver: Options.Version is required")
	case opts.Gate == nil:
		return nil, errors.New("mcpserver: Options.Gate is required (mutating calls need the approval gate)")
	case opts.Redact == nil:
		return nil, errors.New("mcpserver: Options.Redact is required (every result passes the redaction gateway)")
	}
	s := &Server{opts: *opts, started: time.Now(), handlers: map[string]handler{}, done: make(chan struct{}),
		watchers: routine.NewGroup(ctx), ctxDone: ctx.Done(), incarnation: newIncarnation()}
	if s.opts.Logger == nil {
		s.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if s.opts.Classifier == nil {
		s.opts.Classifier = untrusted.Rules{}
	}
	if s.opts.Daemon == nil {
		s.opts.Daemon = func() Daemon { return Daemon{PID: os.Getpid(), StartedAt: s.started} }
	}
	s.log = s.opts.Logger
	if s.opts.linkMax <= 0 {
		s.opts.linkMax = MaxMessage
	}
	if s.opts.linkHello <= 0 {
		s.opts.linkHello = mcpline.HelloTimeout
	}
	if s.opts.Sessions.Logger == nil {
		s.opts.Sessions.Logger = s.log
	}
	if s.opts.Sessions.Size == nil {
		s.opts.Sessions.Size = resultSize
	}
	s.sessions = session.New(ctx, &s.opts.Sessions)
	s.restoreKept()
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "gasoline", Title: "Gasoline", Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLogger(s.log),
		// An HTTP session id names the daemon run that made it, so a
		// later run can tell "restarted" from "expired" (restart.go).
		// A revived session gets its old id back (revive.go).
		GetSessionID: func() string { return s.revive.nextID(func() string { return s.incarnation + rand.Text() }) },
	})
	s.mcp.AddReceivingMiddleware(s.middleware)
	for _, t := range tools.All() {
		s.mcp.AddTool(sdkTool(t), s.toolHandler(t.Name))
	}
	s.builtins()
	s.http = s.newHTTPHandler()
	go s.lifetime(ctx)
	return s, nil
}

const instructions = "Gasoline drives the user's real Chrome through its extension. " +
	"Read with observe (snapshot gives [eN] refs to act on), act with interact (mutating modes need the user's approval; " +
	"before several changes on a site, propose a plan the user approves once: interact plan), " +
	"analyze and generate work on what was captured. configure describe_capabilities gives any mode's arguments; " +
	"configure doctor says what to fix when something fails. " + untrusted.AgentRule

// lifetime closes every MCP session when ctx ends, then waits for the
// session manager and the watchers.
func (s *Server) lifetime(ctx context.Context) {
	defer close(s.done)
	<-ctx.Done()
	var wg sync.WaitGroup
	for ss := range s.mcp.Sessions() {
		wg.Go(func() { ss.Close() }) // an HTTP stream's close waits for its peer, bounded
	}
	wg.Wait()
	s.watchers.Wait()
	s.sessions.Wait()
}

// Wait waits until the server has stopped (after the ctx given to New
// ended).
func (s *Server) Wait() { <-s.done }

// MCP returns the SDK server, for in-process transports in tests.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Sessions returns the ready MCP sessions per transport (for /health).
func (s *Server) Sessions() (stdio, http int) { return s.sessions.Counts() }

// SessionManager returns the session manager.
func (s *Server) SessionManager() *session.Manager { return s.sessions }

// HTTPHandler serves streamable HTTP MCP (mount it on /mcp behind the
// loopback guard).
func (s *Server) HTTPHandler() http.Handler { return s.http }

// Handle registers the implementation of tool.what; a mode without one
// answers not_available. It panics if the mode is not in the table. What
// runs around a handler (watchers, redaction, fencing) is the dispatcher's
// to compose, from the mode's definition: nothing wraps a handler.
func (s *Server) Handle(tool, what string, h Handler) { s.register(tool, what, handler{run: h}) }

// HandleQuick registers a mode that answers from the daemon's memory at
// once (a capture buffer read: no browser round trip, nothing that
// blocks). It runs on the request goroutine, without the session command
// a call that may outlast its budget needs — unless the call asks for
// background, which still gets its correlation id.
func (s *Server) HandleQuick(tool, what string, h Handler) {
	s.register(tool, what, handler{run: h, quick: true})
}

// Watch adds a watcher: the calls of the modes it watches run inside it,
// after the watchers added before it (dispatch.go, compose). Add watchers
// before the daemon serves.
func (s *Server) Watch(w Watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches = append(s.watches, w)
}

func (s *Server) register(tool, what string, h handler) {
	m, ok := tools.Lookup(tool, what)
	if !ok {
		panic(fmt.Sprintf("mcpserver: %s.%s is not in the tool table", tool, what))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[m.Key()] = h
}

func (s *Server) handler(m *tools.Mode) (handler, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.handlers[m.Key()]
	return h, ok
}

// available reports whether this build serves the mode.
func (s *Server) available(m *tools.Mode) bool {
	_, ok := s.handler(m)
	return ok
}

// served lists the modes this build serves, as "tool what".
func (s *Server) served() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, t := range tools.All() {
		for _, m := range t.Modes {
			if _, ok := s.handlers[m.Key()]; ok {
				out = append(out, m.Tool+" "+m.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sdkTool turns a table tool into its tools/list entry.
func sdkTool(t *tools.Tool) *mcp.Tool {
	h := t.Hints()
	return &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description(),
		InputSchema: t.InputSchema(),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    h.ReadOnly,
			DestructiveHint: &h.Destructive,
			IdempotentHint:  h.Idempotent,
			OpenWorldHint:   &h.OpenWorld,
		},
	}
}
