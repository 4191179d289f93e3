package launcher

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestEnsureAfterDeliberateStop: with the marker and no daemon, Ensure
// starts nothing and says how to start Gasoline; an explicit start clears
// the marker and spawns.
func TestEnsureAfterDeliberateStop(t *testing.T) {
	dir := t.TempDir()
	if err := state.MarkStopped(dir, state.Stop{By: "SIGTERM"}); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-binary")
	opts := Options{Dir: dir, Port: freePort(t), Exe: missing, Timeout: 2 * time.Second}
	_, err := Ensure(context.Background(), opts)
	var se *StoppedError
	if !errors.Is(err, ErrStopped) || !errors.As(err, &se) || se.Stop.By != "SIGTERM" ||
		!strings.Contains(err.Error(), "Start button") {
		t.Fatalf("Ensure after a stop = %v", err)
	}
	opts.Start = true
	_, err = Ensure(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "no-such-binary") {
		t.Fatalf("explicit start = %v, want it to try spawning the binary", err)
	}
	if _, stopped := state.Stopped(dir); stopped {
		t.Fatal("an explicit start left the marker")
	}
}
