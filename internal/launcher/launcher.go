// Package launcher makes sure a daemon of this build is running and
// reachable, for the modes that need one (native host, --mcp): it checks
// health, removes stale state, recycles a daemon of another version, and
// spawns `gasoline-host daemon` detached when none answers.
package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// Options configures Ensure. Zero values take the documented defaults.
type Options struct {
	Dir     string        // state directory; default state.Dir()
	Port    int           // daemon port; default state.Port()
	Version string        // the version the daemon must report; default version.Version
	Exe     string        // binary to spawn as `Exe daemon`; default os.Executable()
	Timeout time.Duration // bound on the whole Ensure; default 15s
	// Start is an explicit start (the panel's Start button, `gasoline-host
	// service start`): it clears a deliberate stop. Without it, Ensure
	// starts no daemon after a deliberate stop and returns a *StoppedError.
	Start  bool
	Logger *slog.Logger
}

// Daemon is a reachable daemon.
type Daemon struct {
	Port int
	PID  int
	Dir  string // its state directory (where the credentials are)
}

// Credential returns the credential of a role for this daemon, read at
// the moment of the call: the link and approver credentials change each
// time a daemon starts, the agent one when the user rotates it. The agent
// credential is created when missing.
func (d Daemon) Credential(r creds.Role) (string, error) {
	if r == creds.Agent {
		return creds.Ensure(d.Dir, r)
	}
	return creds.Load(d.Dir, r)
}

// URL returns the daemon's base URL for a scheme ("http" or "ws").
func (d Daemon) URL(scheme, path string) string {
	return scheme + "://127.0.0.1:" + strconv.Itoa(d.Port) + path
}

// Health is the subset of /health the launcher reads.
type Health struct {
	ServiceName string `json:"service-name"`
	Version     string `json:"version"`
	PID         int    `json:"pid"`
}

func (o *Options) fill() error {
	if err := o.fillPlace(); err != nil {
		return err
	}
	var err error
	if o.Exe == "" {
		if o.Exe, err = os.Executable(); err != nil {
			return fmt.Errorf("launcher: locating own binary: %w", err)
		}
	}
	if o.Timeout == 0 {
		o.Timeout = 15 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// fillPlace fills where the daemon is: its state directory, port and
// version.
func (o *Options) fillPlace() error {
	var err error
	if o.Dir == "" {
		if o.Dir, err = state.Dir(); err != nil {
			return err
		}
	}
	if o.Port == 0 {
		if o.Port, err = state.Port(); err != nil {
			return err
		}
	}
	if o.Version == "" {
		o.Version = version.Version
	}
	return nil
}

// Probe asks the daemon on port for /health. It returns an error when
// nothing answers or something other than Gasoline answers.
func Probe(ctx context.Context, port int) (Health, error) {
	var h Health
	status, body, err := request(ctx, port, "GET", "/health", "")
	if err != nil {
		return h, err
	}
	if status != 200 {
		return h, fmt.Errorf("launcher: /health answered %d", status)
	}
	if err := json.Unmarshal(body, &h); err != nil || h.ServiceName != "gasoline" {
		return h, fmt.Errorf("%w: port %d answers, but not as a Gasoline daemon; stop that program or set GASOLINE_PORT", ErrForeignPort, port)
	}
	return h, nil
}

// ErrForeignPort means the port answers, but not as Gasoline.
var ErrForeignPort = errors.New("launcher: port held by another program")

// ErrStopped means Gasoline was stopped on purpose and no daemon runs:
// only an explicit start (Options.Start) starts one. Errors matching it
// are *StoppedError.
var ErrStopped = errors.New("launcher: Gasoline was stopped on purpose")

// StoppedError says when and how Gasoline was stopped, and how to start
// it again.
type StoppedError struct{ Stop state.Stop }

func (e *StoppedError) Error() string {
	return "Gasoline was " + e.Stop.Describe() + " and stays stopped until it is started again: " +
		"the Start button in the Gasoline panel, or gasoline-host service start"
}

// Is makes errors.Is(err, ErrStopped) true.
func (e *StoppedError) Is(target error) bool { return target == ErrStopped }

// HostName is gasoline-host's file name on this OS.
const HostName = "gasoline-host" + exeSuffix

// Beside returns the path of the file name in the folder of this
// executable (symlinks resolved): gasoline-mcp starts the daemon from the
// gasoline-host installed beside it. It does not check that the file is
// there: spawn says so, naming it, when a daemon has to start.
func Beside(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("launcher: locating own binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Join(filepath.Dir(exe), name), nil
}
