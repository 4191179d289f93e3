// Package mcprelay is the stdio MCP server agents run: `gasoline-mcp`
// (the slim binary their configs name) and `gasoline-host --mcp`. It
// ensures the daemon is up and relays MCP JSON-RPC between stdio (one
// message per line) and the daemon's link (link.go, internal/mcpline: one
// message per line over TCP to the daemon's port). It holds no policy; the daemon's dispatcher answers
// every call. It answers the client's initialize itself from a cache of
// the daemon's own answer (initialize.go), so an agent's start waits for
// no round trip to the daemon.
//
// Stdout carries protocol bytes only and has one writer (the relay loop);
// logs go to stderr. When the daemon goes away mid-session the relay
// answers in-flight requests with JSON-RPC errors, re-runs the launcher,
// reconnects, replays the client's initialize handshake and tells the
// client with a notifications/message.
package mcprelay

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// Main runs `gasoline-host --mcp [--session ID.KEY] [--verbose] [--debug]`:
// when no daemon runs it starts this executable as `gasoline-host daemon`.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runMain(ctx, "--mcp", nil, nil, args, stdin, stdout, stderr)
}

// MainSlim runs `gasoline-mcp [--session ID.KEY] [--verbose] [--debug]`,
// the stdio server agents' configs name: when no daemon runs it starts
// gasoline-host from beside its own executable (launcher.Beside). Its
// start is on the agent's clock, so it does nothing before the first
// answer that can wait: it reads the first line on its own goroutine
// (Config.AfterFirst) and only then watches SIGINT and SIGTERM (before
// that they end the process, which holds nothing yet) and, when a daemon
// has to be started, locates gasoline-host.
func MainSlim(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopSignals := func() bool { return false }
	defer func() { stopSignals() }()
	afterFirst := func() {
		sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		context.AfterFunc(sctx, cancel)
		stopSignals = func() bool { stop(); return true }
	}
	exe := func() (string, error) { return launcher.Beside(launcher.HostName) }
	return runMain(ctx, "gasoline-mcp", exe, afterFirst, args, stdin, stdout, stderr)
}

// runMain parses the flags and runs the relay; exe names the gasoline-host
// to start a daemon from (nil: this executable).
func runMain(ctx context.Context, name string, exe func() (string, error), afterFirst func(),
	args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	hint := fs.String("session", os.Getenv("GASOLINE_SESSION"), "session to resume (its pending commands and results): ID.KEY, as a relay_exiting error names it")
	verbose := fs.Bool("verbose", os.Getenv("GASOLINE_VERBOSE") != "", "log what the relay does (connections, resumes) to stderr, not only warnings and errors")
	debug := fs.Bool("debug", os.Getenv("GASOLINE_DEBUG") != "", "log debug detail to stderr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: StderrLevel(*verbose, *debug)}))
	cache := ""
	if dir, err := state.Dir(); err == nil {
		cache = state.InitCachePath(dir)
	}
	return Run(ctx, Config{
		In: stdin, Out: stdout, Logger: log, Session: *hint, InitCache: cache, AfterFirst: afterFirst,
		Ensure: func(ctx context.Context) (launcher.Daemon, error) {
			opts := launcher.Options{Logger: log}
			if exe != nil {
				var err error
				if opts.Exe, err = exe(); err != nil {
					return launcher.Daemon{}, err
				}
			}
			return launcher.Ensure(ctx, opts)
		},
		Known:   func() (launcher.Daemon, bool) { return launcher.Known(launcher.Options{}) },
		Running: func() bool { return launcher.Running(launcher.Options{}) },
	})
}

// Config configures Run. In, Out and Ensure are required.
type Config struct {
	In  io.Reader // the client's messages, one per line
	Out io.Writer // protocol bytes only
	// Ensure returns a reachable daemon, starting one if needed
	// (launcher.Ensure in production).
	Ensure func(ctx context.Context) (launcher.Daemon, error)
	// Known, when set, names the daemon the state says runs (launcher.Known),
	// for the first connection: dialled at once, it is used when it
	// answers as a daemon of this version, and Ensure runs otherwise. It
	// saves the /health round trip at every start.
	Known func() (launcher.Daemon, bool)
	// Running, when set, reports whether a daemon runs (launcher.Running:
	// state.json and a process check, no round trip). A cache hit answers
	// initialize only when it does; otherwise the initialize is forwarded
	// as without a cache, so a client is never told it is connected while
	// no daemon runs. Nil: no check (tests of the cache alone).
	Running func() bool
	// Session is a session to resume ("ID.KEY": its id and resume key, as
	// errExiting names it), if the daemon still keeps it.
	Session string
	// DrainTimeout bounds the wait for answers still in flight when stdin
	// ends; what is left then gets an error. Default 750ms: the relay exits
	// within a second of the end of its input.
	DrainTimeout time.Duration
	// DialTimeout bounds one dial of the link and its hello. Default 10s.
	DialTimeout time.Duration
	// InitCache is the file that keeps the daemon's initialize answers
	// (state.InitCachePath): a client's initialize is answered from it at
	// once when it holds one of this Version for the protocolVersion asked
	// (initialize.go). "": no cache, every initialize waits for the daemon.
	InitCache string
	// AfterFirst, when set, is called once the client's first line has
	// been read and, on a cache hit, answered (or stdin ended). Until then
	// Run starts no goroutine: when the cache holds a result of this
	// Version it reads and answers that line on the caller's goroutine (a
	// read ctx cannot interrupt), so a hit is on stdout before the process
	// needs a second thread. For a caller that installs its signal
	// handling there (MainSlim).
	AfterFirst func()
	// Version is this relay's; only a daemon of the same version is used
	// without Ensure, and only its answers fill the cache. Default
	// version.Version.
	Version string
	Logger  *slog.Logger

	sent func(msg []byte) // tests: hears each message as it goes on a link
}

// MaxMessage bounds one message each way (a line on stdin, a line from
// the daemon's link).
const MaxMessage = protocol.MaxMessage

// Run relays until stdin ends (then it returns nil once in-flight answers
// are written, or answered with an error after DrainTimeout) or ctx ends.
func Run(ctx context.Context, cfg Config) error {
	if cfg.In == nil || cfg.Out == nil || cfg.Ensure == nil {
		return fmt.Errorf("mcprelay: Config.In, Out and Ensure are required")
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = 750 * time.Millisecond
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = version.Version
	}
	r := newRelay(cfg)
	br := bufio.NewReaderSize(cfg.In, 64<<10)
	if cfg.AfterFirst != nil {
		if r.init.cache.holdsAny() {
			if first := readFirst(br, MaxMessage); first != nil {
				r.take(*first) // a hit is on stdout now, before anything else starts
			}
		}
		cfg.AfterFirst()
	}
	stop := make(chan struct{})
	defer close(stop)
	return r.run(ctx, readLines(br, MaxMessage, stop))
}

// StderrLevel is what --mcp writes to stderr: warnings and errors only
// (clients show a stdio server's stderr, some as errors: `claude --debug`
// showed every INFO line as [ERROR]), everything it does with --verbose,
// and debug detail with --debug.
func StderrLevel(verbose, debug bool) slog.Level {
	switch {
	case debug:
		return slog.LevelDebug
	case verbose:
		return slog.LevelInfo
	}
	return slog.LevelWarn
}
