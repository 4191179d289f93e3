//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Issue 18 item 7 end to end: a daemon stopped on purpose (SIGTERM, or
// `gasoline-host service stop`) is not brought back by the native host;
// the panel says "Gasoline is stopped" and its Start button starts it
// (over the extension link, through the native host). `service start`
// starts it too. A crash (SIGKILL) is still recovered at once.
func TestE2EDeliberateStop(t *testing.T) {
	s := startSpawned(t, "")
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	s.userClient(t, "stop-e2e") // an agent session: the panel is ready, not degraded
	p := openPanelIn(t, ctx, s.browser.UserDataDir)
	p.wait = 45 * time.Second
	p.waitState(ctx, "ready")

	// Running again: a new daemon, which has no agent session yet.
	running := func() {
		t.Helper()
		p.waitFor(ctx, "running", `document.getElementById('start').hidden && (document.body.dataset.state === 'ready'
		  || document.getElementById('detail').textContent.startsWith('Gasoline is running'))`)
	}
	stopped := func(how string) {
		t.Helper()
		p.waitState(ctx, "stopped")
		p.waitFor(ctx, "Gasoline is stopped, with Start", `document.getElementById('detail').textContent === 'Gasoline is stopped'
		  && !document.getElementById('start').hidden`)
		_, marked := state.Stopped(s.home)
		require.True(t, marked, "%s: no deliberate stop recorded", how)
		// The host has seen the stop and decided: it started no daemon.
		_, up := getHealth(s.portN)
		require.False(t, up, "%s: a daemon was started again", how)
	}

	// SIGTERM: stopped, then the panel's Start.
	first := s.pid(t)
	require.NoError(t, syscall.Kill(first, syscall.SIGTERM))
	stopped("SIGTERM")
	p.shot(ctx, "20-stopped.png")
	p.click(ctx, "#start")
	second := s.waitConnected(t, first)
	running()
	_, marked := state.Stopped(s.home)
	require.False(t, marked, "Start left the stop marker")

	// gasoline-host service stop (no service manager here: it stops the
	// on-demand daemon), then service start.
	service := func(verb string) {
		t.Helper()
		cmd := exec.Command(hostBin, "service", verb)
		cmd.Env = append(os.Environ(), s.env()...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "service %s: %s", verb, out)
	}
	service("stop")
	stopped("service stop")
	service("start")
	third := s.waitConnected(t, second)
	running()

	// A crash is not a stop: the host brings the daemon back by itself.
	require.NoError(t, syscall.Kill(third, syscall.SIGKILL))
	s.waitConnected(t, third)
	_, marked = state.Stopped(s.home)
	require.False(t, marked)
	running()
}
