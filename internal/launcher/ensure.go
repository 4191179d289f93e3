package launcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Ensure returns a reachable daemon of opts.Version, starting or recycling
// one as needed. It returns as soon as the daemon answers; every wait is
// bounded by opts.Timeout.
func Ensure(ctx context.Context, opts Options) (Daemon, error) {
	if err := opts.fill(); err != nil {
		return Daemon{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	log := opts.Logger

	var spawned <-chan error // the spawned daemon's exit, once spawned
	backoff := 10 * time.Millisecond
	for {
		st, stErr := state.Read(opts.Dir)
		h, herr := Probe(ctx, opts.Port)
		switch {
		case herr == nil && h.Version == opts.Version:
			if stErr == nil && st.PID == h.PID && st.Port == opts.Port {
				return Daemon{Port: st.Port, PID: st.PID, Dir: opts.Dir}, nil
			}
			// It listens but has not written state.json yet: wait.
		case herr == nil:
			log.Info("launcher: recycling daemon of another version", "running", h.Version, "want", opts.Version, "pid", h.PID)
			if err := recycle(ctx, opts, h, st, stErr); err != nil {
				return Daemon{}, err
			}
			continue
		case isForeign(herr):
			return Daemon{}, herr
		default:
			if stErr == nil || !errors.Is(stErr, state.ErrNoState) {
				removeStale(opts, st, stErr)
			}
			if spawned == nil {
				if err := checkStopped(opts); err != nil {
					return Daemon{}, err
				}
				log.Info("launcher: starting daemon", "exe", opts.Exe, "port", opts.Port)
				var err error
				if spawned, err = spawn(opts); err != nil {
					return Daemon{}, err
				}
			}
		}
		select {
		case err := <-spawned:
			// The daemon we started exited before answering. Another
			// launcher's daemon may have won the lock; keep probing, but
			// only until the deadline.
			log.Info("launcher: spawned daemon exited", "err", err)
			spawned = closedErr
		case <-time.After(backoff):
		case <-ctx.Done():
			return Daemon{}, fmt.Errorf("launcher: no daemon answered on 127.0.0.1:%d within %s; see %s (last error: %v)",
				opts.Port, opts.Timeout, state.LogDir(opts.Dir), herr)
		}
		backoff = min(backoff*2, 200*time.Millisecond)
	}
}

// checkStopped refuses to start a daemon after a deliberate stop, unless
// this is an explicit start, which clears it.
func checkStopped(opts Options) error {
	stop, stopped := state.Stopped(opts.Dir)
	switch {
	case !stopped:
		return nil
	case opts.Start:
		opts.Logger.Info("launcher: explicit start after a deliberate stop", "stopped_by", stop.By)
		return state.ClearStopped(opts.Dir)
	}
	return &StoppedError{Stop: stop}
}

// closedErr is a never-ready channel that marks "already spawned once".
var closedErr = make(chan error)

func isForeign(err error) bool { return errors.Is(err, ErrForeignPort) }

// removeStale deletes a state file whose daemon no longer answers. Dead
// processes and permission errors are tolerated: the file is only advice.
func removeStale(opts Options, st state.File, stErr error) {
	if stErr == nil && st.PID != 0 && st.PID != os.Getpid() && processAlive(st.PID) {
		opts.Logger.Info("launcher: state names a live process that does not answer; leaving it", "pid", st.PID)
	}
	if state.Remove(opts.Dir, 0) {
		opts.Logger.Info("launcher: removed stale state file", "pid", st.PID)
	}
}

// recycle stops a daemon of another version: first by asking it (POST
// /shutdown with its approver credential, or the single token of a daemon
// from before per-role credentials), then by terminating its process, and
// waits until the port is free.
func recycle(ctx context.Context, opts Options, h Health, st state.File, stErr error) error {
	asked := false
	if stErr == nil && st.PID == h.PID {
		tok := st.LegacyToken
		if tok == "" {
			tok, _ = creds.Load(opts.Dir, creds.Approver)
		}
		if tok != "" {
			asked = askShutdown(ctx, opts.Port, tok)
		}
	}
	if !asked {
		if err := terminate(h.PID); err != nil {
			return fmt.Errorf("launcher: a Gasoline daemon of version %s (pid %d) holds port %d and cannot be stopped (%v); stop it by hand or set GASOLINE_PORT",
				h.Version, h.PID, opts.Port, err)
		}
	}
	for {
		if _, err := Probe(ctx, opts.Port); err != nil {
			return nil
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return fmt.Errorf("launcher: daemon %d (version %s) did not stop in time", h.PID, h.Version)
		}
	}
}

func askShutdown(ctx context.Context, port int, tok string) bool {
	status, _, err := request(ctx, port, "POST", "/shutdown", tok)
	return err == nil && status == 202 // Accepted
}

// spawn starts `exe daemon` detached from this process (own session, no
// stdio), so it outlives the native host or MCP client that started it.
// The returned channel yields its exit; a reaper goroutine owns the child
// until then.
func spawn(opts Options) (<-chan error, error) {
	if _, err := os.Stat(opts.Exe); errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingHostError{Path: opts.Exe}
	}
	cmd := exec.Command(opts.Exe, "daemon")
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+opts.Dir, fmt.Sprintf("GASOLINE_PORT=%d", opts.Port))
	cmd.Dir = opts.Dir
	detach(cmd)
	if err := state.EnsureDir(opts.Dir); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("launcher: starting %s daemon: %w", opts.Exe, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done, nil
}

// MissingHostError means no daemon runs and the binary that would start
// one is not there: gasoline-mcp starts gasoline-host from its own folder.
type MissingHostError struct{ Path string }

func (e *MissingHostError) Error() string {
	return "no Gasoline daemon runs and " + e.Path + " is missing, so none can start: gasoline-mcp starts the daemon " +
		"from the gasoline-host beside it; put both in one folder (make build, or the installer), or start " +
		"gasoline-host daemon yourself"
}

// Shutdown stops the daemon answering on opts.Port, if any (POST /shutdown
// with its approver credential), and waits until the port is free. It
// reports whether one was running.
func Shutdown(ctx context.Context, opts Options) (bool, error) {
	if err := opts.fill(); err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	h, err := Probe(ctx, opts.Port)
	if err != nil {
		return false, nil
	}
	st, stErr := state.Read(opts.Dir)
	return true, recycle(ctx, opts, h, st, stErr)
}
