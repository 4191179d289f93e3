//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// slimClient connects the official go-sdk client through gasoline-mcp as
// today's clients speak MCP: initialize first, protocol 2025-11-25. (The
// go-sdk's own default first probes server/discover, SEP-2575, which the
// daemon declines; the relay answers only a first message that is an
// initialize from its cache.)
func slimClient(t *testing.T, home string, port int, name string) *client {
	t.Helper()
	cmd := exec.Command(slimBin)
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+home, "GASOLINE_PORT="+strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// Issue 35: gasoline-mcp, the slim relay agents' configs run, through the
// real chain (Chromium starts the native host from its manifest, the host
// spawns the daemon): its first start fills the initialize cache from the
// daemon's own answer; the next start is answered from that cache (edited
// here so the test can tell), the daemon's answer puts the cache right,
// and tools/list and tool calls work after.
func TestE2ESlimRelayAnswersInitializeFromCache(t *testing.T) {
	s := startSpawned(t, localDevPolicy)
	cache := state.InitCachePath(s.home)
	_, err := os.Stat(cache)
	require.ErrorIs(t, err, os.ErrNotExist, "no client has initialized yet")

	first := slimClient(t, s.home, s.portN, "slim-first")
	daemons := first.cs.InitializeResult()
	require.Equal(t, "gasoline", daemons.ServerInfo.Name)
	tools, err := first.cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 5)
	raw, err := os.ReadFile(cache)
	require.NoError(t, err, "the first start fills the cache")
	require.Contains(t, string(raw), daemons.Instructions[:40])
	first.cs.Close()

	edited := strings.Replace(string(raw), `"instructions":"`, `"instructions":"FROM THE CACHE. `, 1)
	require.NoError(t, os.WriteFile(cache, []byte(edited), 0o600))
	second := slimClient(t, s.home, s.portN, "slim-second")
	require.True(t, strings.HasPrefix(second.cs.InitializeResult().Instructions, "FROM THE CACHE. "),
		"the second start is answered from the cache: %q", second.cs.InitializeResult().Instructions)
	tools, err = second.cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 5)
	tab := second.newTab(s.site + "/pages/relay/console.html")
	page := second.observe("page", nil)
	require.Equal(t, float64(tab), page.Data["tab_id"], "%s", page.Text)
	now, err := os.ReadFile(cache)
	require.NoError(t, err)
	require.Equal(t, string(raw), string(now), "the daemon's answer put the cache right")
}

// A cache of this version but no daemon running: gasoline-mcp must not
// answer from the cache (a client, or a probe such as `claude mcp list`,
// would hear it is connected while nothing runs). It starts the daemon
// from the gasoline-host beside it and the client gets that daemon's
// answer, not the cache's.
func TestE2ESlimRelayAnswersFromCacheOnlyWithADaemon(t *testing.T) {
	home, port := t.TempDir(), FreePort(t)
	t.Cleanup(func() {
		if st, err := state.Read(home); err == nil {
			stopProcess(st.PID)
		}
	})
	out, err := exec.Command(slimBin, "version").Output()
	require.NoError(t, err)
	cached := `{"version":"` + strings.TrimSpace(string(out)) + `","results":{"2025-11-25":` +
		`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"from-the-cache","version":"0"},"instructions":"FROM THE CACHE."}}}`
	require.NoError(t, os.WriteFile(state.InitCachePath(home), []byte(cached), 0o600))
	_, err = state.Read(home)
	require.ErrorIs(t, err, state.ErrNoState, "no daemon has run in this home")

	c := slimClient(t, home, port, "slim-no-daemon")
	got := c.cs.InitializeResult()
	require.Equal(t, "gasoline", got.ServerInfo.Name, "answered by the daemon the relay started, not the cache: %+v", got.ServerInfo)
	st, err := state.Read(home)
	require.NoError(t, err, "the relay started a daemon")
	require.Equal(t, port, st.Port)
	tools, err := c.cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 5)
}
