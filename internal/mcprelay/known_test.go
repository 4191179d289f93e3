package mcprelay

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// countingEnsure counts the relay's calls to Ensure and hands out d.
func countingEnsure(d *fakeDaemon, n *atomic.Int32) func(context.Context) (launcher.Daemon, error) {
	return func(ctx context.Context) (launcher.Daemon, error) {
		n.Add(1)
		if d == nil {
			return launcher.Daemon{}, errors.New("no daemon")
		}
		return d.ensure(ctx)
	}
}

func knownAs(d *fakeDaemon) func() (launcher.Daemon, bool) {
	return func() (launcher.Daemon, bool) {
		ld, _ := d.ensure(context.Background())
		return ld, true
	}
}

// TestRelayDialsTheKnownDaemon: at start the relay dials the daemon the
// state names and, when it answers as this version, uses it: no Ensure (no
// /health round trip), and the client's messages go through.
func TestRelayDialsTheKnownDaemon(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = version.Version
	var ensured atomic.Int32
	r := startRelay(t, Config{Ensure: countingEnsure(nil, &ensured), Known: knownAs(fd)})
	d := fd.accept(t)
	r.send(clientInit)
	got := d.recv()
	if got["method"] != "initialize" {
		t.Fatalf("daemon got %v", got)
	}
	d.send(`{"jsonrpc":"2.0","id":` + idOf(got) + `,"result":{"protocolVersion":"2025-06-18"}}`)
	if got := r.recv(); got["id"] != 1.0 || got["result"] == nil {
		t.Fatalf("client got %v", got)
	}
	if n := ensured.Load(); n != 0 {
		t.Fatalf("Ensure ran %d times; the known daemon answered as this version", n)
	}
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
}

// TestRelayEnsuresWhenTheKnownDaemonIsNotIt: a known daemon of another
// version (or one that does not say, from before the header) is left, its
// connection ended, and so is one that does not answer: Ensure finds the
// daemon to use.
func TestRelayEnsuresWhenTheKnownDaemonIsNotIt(t *testing.T) {
	cases := []struct {
		name    string
		version string // the known daemon's answer; "-" for no daemon at all
	}{
		{"another version", "v0-other"},
		{"no version in its answer", ""},
		{"nothing listens", "-"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			known := newFakeDaemon(t)
			known.version = c.version
			if c.version == "-" {
				known.stop()
			}
			good := newFakeDaemon(t)
			good.version = version.Version
			var ensured atomic.Int32
			r := startRelay(t, Config{Ensure: countingEnsure(good, &ensured), Known: knownAs(known)})
			if c.version != "-" {
				stale := known.accept(t)
				select {
				case msg, open := <-stale.msgs:
					if open {
						t.Fatalf("the relay sent %s to a daemon that is not of its version", msg)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the relay kept its connection to a daemon that is not of its version")
				}
				if !stale.ended {
					t.Fatal("the stale connection closed without ending its session (mcpline.End)")
				}
			}
			d := good.accept(t)
			r.send(clientInit)
			if got := d.recv(); got["method"] != "initialize" {
				t.Fatalf("daemon got %v", got)
			}
			if n := ensured.Load(); n != 1 {
				t.Fatalf("Ensure ran %d times, want 1", n)
			}
			r.exit()
		})
	}
}
