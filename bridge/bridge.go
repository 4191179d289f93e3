// Package bridge is the Gasoline daemon: the loopback HTTP/WebSocket server
// that every client reaches (native hosts on /ws/host, MCP clients on /mcp
// and, on the same port, the stdio relay's line link, the terminal CLI on
// /approvals), wiring the extension links,
// sessions, dispatcher, approvals and redaction together.
package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/internal/httpguard"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/portmux"
	"github.com/gasoline-mcp/gasoline/internal/remote"
	"github.com/gasoline-mcp/gasoline/internal/safety"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/terminal"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// Config configures the daemon. Dir is required; the rest have defaults.
type Config struct {
	Dir    string // state directory (state.json, logs/, lock)
	Port   int    // 0 means state.DefaultPort
	Logger *slog.Logger
	// Version defaults to version.Version. Tests set it to exercise the
	// launcher's recycling of a daemon of another version.
	Version string
	// Ready, when set, is called once the daemon serves and state.json is
	// written.
	Ready func(s *Server)
	// SessionTTL is how long a session whose client went away is kept for
	// it to resume (default session.DefaultTTL); tests shorten it.
	SessionTTL time.Duration
	// Release runs once after each burst of activity, when RestAfter
	// passes with no tool call, request or browser message (release.go);
	// defaults memory.Release and restAfter. Tests observe it.
	Release   func()
	RestAfter time.Duration
}

// Server is a running daemon.
type Server struct {
	cfg   Config
	log   *slog.Logger
	creds *creds.Set // one credential per role (docs/SECURITY.md)
	// remotes are the remote agents (internal/remote, remote.go).
	remotes *remote.Registry
	guard   *httpguard.Guard
	links   *browsers.Hub // the connected browsers; calls go to the one holding the tab
	safe    *safety.Core  // approvals, policy, audit, redaction
	mux     *http.ServeMux
	mcp     *mcpserver.Server
	// mcpHTTP serves /mcp (startMCP).
	mcpHTTP http.Handler
	// browser is the relay state: tab ownership, capture, observe modes.
	browser *browser
	// agentSide is the session recorder, agent_watch and the panel.
	agentSide agentSide
	// terms are the panel's terminals, reached only over extension links.
	terms *terminal.Manager

	// rest hands memory back to the system when the daemon is idle
	// (release.go).
	rest *memory.Rest

	stop     context.CancelFunc // ends Run; used by /shutdown
	stopOnce sync.Once
	port     int
}

// CDP returns a typed CDP session on a tab of the connected browser (its
// target's).
func (s *Server) CDP(tabID int) *cdp.Session { return s.browser.tabs.Target(tabID).Session() }

// Approvals returns the approval engine (the panel and the CLI decide
// through it; never an MCP tool).
func (s *Server) Approvals() *approval.Engine { return s.safe.Approvals }

// Extensions returns the connected browsers.
func (s *Server) Extensions() *browsers.Hub { return s.links }

// Terminals returns the panel's terminals (tests; never an MCP tool).
func (s *Server) Terminals() *terminal.Manager { return s.terms }

// MCPServer returns the MCP server (tests read its sessions).
func (s *Server) MCPServer() *mcpserver.Server { return s.mcp }

// Port returns the port the daemon listens on.
func (s *Server) Port() int { return s.port }

// Token returns the agent (MCP) credential, for in-process tests and
// clients.
func (s *Server) Token() string { return s.creds.Value(creds.Agent) }

// Credential returns a role's credential, for in-process tests.
func (s *Server) Credential(r creds.Role) string { return s.creds.Value(r) }

// Run starts the daemon and blocks until ctx ends or /shutdown is called,
// then stops gracefully: listeners closed, links closed, state file removed,
// lock released.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Dir == "" {
		return errors.New("bridge: Config.Dir is required")
	}
	if cfg.Port == 0 {
		cfg.Port = state.DefaultPort
	}
	if cfg.Version == "" {
		cfg.Version = version.Version
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	log.Info("startup", "stage", "lock", "dir", cfg.Dir, "version", cfg.Version, "pid", os.Getpid())
	if err := state.EnsureDir(cfg.Dir); err != nil {
		return err
	}
	lock, err := state.Acquire(cfg.Dir)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := state.ClearStopped(cfg.Dir); err != nil { // a daemon that starts ends a deliberate stop
		log.Warn("startup", "err", err)
	}

	// The credentials are written before the daemon listens, so a client
	// that sees it answer finds this daemon's link and approver
	// credentials on disk.
	set, err := creds.OpenSet(cfg.Dir, log)
	if err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	log.Info("startup", "stage", "listen", "port", cfg.Port)
	lns, err := listen(ctx, cfg.Port)
	if err != nil {
		return err
	}

	s := &Server{cfg: cfg, log: log, creds: set, stop: cancel, port: cfg.Port,
		links: browsers.New(browsers.Config{Dir: cfg.Dir, Logger: log})}
	s.guard = &httpguard.Guard{Creds: set, ExtensionOrigin: extid.Origin}
	// The safety core first: everything the daemon logs from here on
	// passes its server stage.
	if s.safe, s.log, err = safety.Start(cfg.Dir, log); err != nil {
		closeAll(lns)
		return err
	}
	defer s.safe.Close()
	s.openRemotes()
	s.terms = terminal.New(terminal.Config{Dir: cfg.Dir, Logger: s.log})
	defer s.terms.Close() // hangs up what is still running, then reaps it
	if s.browser, err = s.newBrowser(ctx); err != nil {
		closeAll(lns)
		return err
	}
	defer func() { cancel(); s.browser.wait(); s.agentSide.wait() }()
	m, err := s.startMCP(ctx)
	if err != nil {
		closeAll(lns)
		return err
	}
	s.mcp = m
	s.browser.register(m)
	if err := s.registerAgent(ctx, m); err != nil {
		closeAll(lns)
		return err
	}
	s.browser.tabs.Sessions(func(id string) tabs.Owner { // restored sessions' tabs end with them (the panel's exists by now)
		if x := m.SessionManager().Get(id); x != nil {
			return x
		}
		return nil
	})
	s.registerCaptureModes(m)
	m.SessionManager().OnEnd(s.sessionEnded) // what a session held goes with it (release.go)
	defer s.startRest()()
	s.mux = http.NewServeMux()
	s.routes()
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}

	var wg sync.WaitGroup
	wg.Go(func() { s.safe.Approvals.Run(ctx) })
	wg.Go(func() { s.remotes.Run(ctx) }) // a remote agent's sessions end when its credential expires
	errc := make(chan error, len(lns)+1)
	for _, ln := range s.shared(ctx, lns) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ln.Wait() // after Shutdown closed it; its links end with ctx
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}

	log.Info("startup", "stage", "state", "file", state.Path(cfg.Dir))
	st := state.File{PID: os.Getpid(), Port: cfg.Port, Version: cfg.Version, StartedAt: time.Now().UTC()}
	if err := state.Write(cfg.Dir, st); err != nil {
		// Without state.json no launcher finds this daemon: stop, and
		// say why (Run returns the error, so the process exits non-zero).
		log.Error("cannot write the state file; stopping", "file", state.Path(cfg.Dir), "err", err)
		errc <- fmt.Errorf("bridge: writing %s: %w", state.Path(cfg.Dir), err)
	} else {
		log.Info("startup", "stage", "ready", "addr", lns[0].Addr().String())
		if cfg.Ready != nil {
			cfg.Ready(s)
		}
	}

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	cancel() // everything the daemon owns stops with ctx
	log.Info("shutdown", "stage", "begin")
	state.Remove(cfg.Dir, os.Getpid())
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer scancel()
	// Shutdown does not wait for hijacked (WebSocket) connections; their
	// handlers end with ctx, which is already done.
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	wg.Wait()
	s.mcp.Wait()
	log.Info("shutdown", "stage", "done")
	return runErr
}

// listen binds 127.0.0.1:port and, where the machine has it, [::1]:port.
// Nothing else is ever bound.
func listen(ctx context.Context, port int) ([]net.Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("bridge: cannot listen on 127.0.0.1:%d (%w); another program has the port: stop it or set GASOLINE_PORT to a free port", port, err)
	}
	lns := []net.Listener{ln}
	if ln6, err := lc.Listen(ctx, "tcp6", net.JoinHostPort("::1", strconv.Itoa(port))); err == nil {
		lns = append(lns, ln6)
	}
	return lns, nil
}

// shared wraps each listener so that the port serves the stdio relay's
// link too (a connection whose first byte is '{': mcpserver.ServeLink,
// docs/DAEMON.md) beside HTTP; the links end with ctx.
func (s *Server) shared(ctx context.Context, lns []net.Listener) []*portmux.Listener {
	out := make([]*portmux.Listener, len(lns))
	for i, ln := range lns {
		out[i] = portmux.New(ln, portmux.Config{
			Match: func(b byte) bool { return b == '{' },
			Serve: func(c net.Conn) {
				s.touch()
				defer s.touch()
				s.mcp.ServeLink(ctx, c, s.creds)
			},
		})
	}
	return out
}

func closeAll(lns []net.Listener) {
	for _, ln := range lns {
		ln.Close()
	}
}

// handleShutdown lets a launcher recycle this daemon (another version is
// taking over) without signals, which Windows lacks. It takes the approver
// credential: an agent never stops the daemon.
func (s *Server) handleShutdown(w http.ResponseWriter, r *http.Request) {
	s.log.Info("shutdown requested over HTTP")
	w.WriteHeader(http.StatusAccepted)
	s.stopOnce.Do(s.stop)
}
