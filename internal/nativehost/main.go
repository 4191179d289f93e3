// Package nativehost is gasoline-host's native-messaging mode: Chrome starts
// it for the extension's connectNative port, and it relays messages between
// Chrome (framed stdin/stdout) and the daemon (WebSocket /ws/host), keeping
// the daemon reachable. See docs/PROTOCOL.md.
package nativehost

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Main runs native-messaging mode for the caller origin Chrome passed. Only
// the pinned extension may use the host. Extra args (Windows passes
// --parent-window=N) are ignored. Nothing but frames is written to stdout.
func Main(ctx context.Context, origin string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if !extid.IsOrigin(origin) {
		return fmt.Errorf("refusing caller %q: this native host serves only the Gasoline extension (%s)", origin, extid.Origin)
	}
	sizeRuntime()
	level := slog.LevelInfo
	if os.Getenv("GASOLINE_DEBUG") != "" {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})).With("component", "gasoline-host")
	var store *redact.Store
	if dir, err := state.Dir(); err == nil {
		store = redact.OpenStore(redact.PathIn(dir))
	} else {
		store = redact.OpenStore(redact.PathIn(os.TempDir() + "/gasoline-no-state-dir"))
	}
	return Run(ctx, Config{
		In:        stdin,
		Out:       stdout,
		Log:       log,
		Redaction: store,
		Release:   memory.Release,
		Ensure: func(ctx context.Context) (launcher.Daemon, error) {
			return launcher.Ensure(ctx, launcher.Options{Logger: log})
		},
		Start: func(ctx context.Context) (launcher.Daemon, error) {
			return launcher.Ensure(ctx, launcher.Options{Logger: log, Start: true})
		},
	})
}
