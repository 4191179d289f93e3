package bridge

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Main runs `gasoline-host daemon`: the daemon in the foreground, logging
// to $GASOLINE_HOME/logs/daemon.log and to stderr, until SIGINT/SIGTERM
// (ctx; recorded as a deliberate stop, state.MarkStopped) or a recycle
// request.
func Main(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	debug := fs.Bool("debug", os.Getenv("GASOLINE_DEBUG") != "", "log debug detail")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := state.Dir()
	if err != nil {
		return err
	}
	port, err := state.Port()
	if err != nil {
		return err
	}
	if err := state.EnsureDir(dir); err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(state.LogDir(dir), "daemon.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("bridge: opening log: %w", err)
	}
	defer logf.Close()
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(io.MultiWriter(logf, stderr), &slog.HandlerOptions{Level: level}))
	// ctx ends on SIGINT/SIGTERM (or the Windows service stop): a stop on
	// purpose, recorded before the daemon starts closing, so the native
	// host sees it when its link drops and does not start another.
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	defer context.AfterFunc(ctx, func() {
		if err := state.MarkStopped(dir, state.Stop{By: "a stop signal (gasoline-host service stop, kill, Ctrl-C)", PID: os.Getpid()}); err != nil {
			log.Error("cannot record the deliberate stop", "err", err)
		}
		cancelRun()
	})()
	err = Run(runCtx, Config{Dir: dir, Port: port, Logger: log})
	if errors.Is(err, state.ErrLocked) {
		// Another daemon serves this state dir: nothing to do, and not a
		// failure (a service manager would otherwise restart us in a loop).
		log.Info("another daemon already runs for this state directory; exiting", "dir", dir)
		return nil
	}
	return err
}
