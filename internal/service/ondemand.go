package service

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// A daemon runs either under the service manager or on demand (started by
// the native host or an MCP client, outside the manager). `service stop`
// and `service start` act on Gasoline as a whole: stop records a
// deliberate stop (state.MarkStopped), so nothing starts a daemon again on
// its own, and also stops an on-demand daemon; start clears it, and with
// no service manager starts a daemon on demand.

// stopGasoline records the deliberate stop and stops a daemon still
// answering (one the manager does not run).
func stopGasoline(ctx context.Context, out io.Writer) error {
	dir, err := state.Dir()
	if err != nil {
		return err
	}
	if err := state.EnsureDir(dir); err != nil {
		return err
	}
	if err := state.MarkStopped(dir, state.Stop{By: "gasoline-host service stop", PID: os.Getpid()}); err != nil {
		return err
	}
	running, err := launcher.Shutdown(ctx, launcher.Options{Dir: dir})
	if err != nil {
		return fmt.Errorf("stopping the running daemon: %w", err)
	}
	if running {
		fmt.Fprintln(out, "service: stopped the running daemon")
	}
	fmt.Fprintln(out, "Gasoline stays stopped until `gasoline-host service start` or the Start button in the Gasoline panel")
	return nil
}

// clearStop ends a deliberate stop.
func clearStop() (string, error) {
	dir, err := state.Dir()
	if err != nil {
		return "", err
	}
	return dir, state.ClearStopped(dir)
}

// startOnDemand starts a daemon without a service manager.
func startOnDemand(ctx context.Context, out io.Writer) error {
	dir, err := clearStop()
	if err != nil {
		return err
	}
	d, err := launcher.Ensure(ctx, launcher.Options{Dir: dir, Start: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "service: no service manager here; started the daemon on demand (pid %d, port %d)\n", d.PID, d.Port)
	return nil
}
