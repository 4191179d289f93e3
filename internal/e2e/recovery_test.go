//go:build linux

package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/testbrowser"
)

type health struct {
	Version         string `json:"version"`
	PID             int    `json:"pid"`
	TransportStatus struct {
		Extension string `json:"extension"`
	} `json:"transport_status"`
}

func getHealth(port int) (health, bool) {
	var h health
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health")
	if err != nil {
		return h, false
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h) == nil
}

// hostPIDs lists running gasoline-host processes in native-messaging mode
// started from bin.
func hostPIDs(bin string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(cmd, []byte{0})
		if len(args) > 1 && string(args[0]) == bin && bytes.HasPrefix(args[1], []byte("chrome-extension://")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// The production path: nothing runs; Chromium starts the host from the
// manifest `gasoline-host install` wrote, the host spawns the daemon, and
// /health reports the extension. Then the daemon dies and the native host
// dies, and each time the chain comes back by itself.
func TestE2ESpawnedDaemonAndRecovery(t *testing.T) {
	home, port := t.TempDir(), FreePort(t)
	t.Cleanup(func() {
		if st, err := state.Read(home); err == nil {
			stopProcess(st.PID) // and wait: its exit writes stopped.json into the home TempDir removes
		}
	})
	udd := t.TempDir()
	Install(t, hostBin, udd)
	testbrowser.Start(t, testbrowser.Options{
		ExtensionDir: filepath.Join(RepoRoot(), "extension"),
		UserDataDir:  udd,
		Env:          []string{"GASOLINE_HOME=" + home, "GASOLINE_PORT=" + strconv.Itoa(port)},
	})
	connected := func() bool {
		h, ok := getHealth(port)
		return ok && h.TransportStatus.Extension == "connected"
	}
	eventually(t, 30*time.Second, "extension connected through a spawned daemon", connected)
	first, _ := getHealth(port)
	st, err := state.Read(home)
	require.NoError(t, err)
	require.Equal(t, first.PID, st.PID)

	// Daemon killed: the host respawns it and replays hello.
	require.NoError(t, syscall.Kill(first.PID, syscall.SIGKILL))
	eventually(t, 30*time.Second, "extension reconnected to a new daemon", func() bool {
		h, ok := getHealth(port)
		return ok && h.PID != first.PID && h.TransportStatus.Extension == "connected"
	})

	// Native host killed: the extension reconnects, Chromium starts a new host.
	hosts := hostPIDs(hostBin)
	require.Len(t, hosts, 1, "one native host per extension port")
	require.NoError(t, syscall.Kill(hosts[0], syscall.SIGKILL))
	eventually(t, 30*time.Second, "a new native host connected", func() bool {
		now := hostPIDs(hostBin)
		return len(now) == 1 && now[0] != hosts[0] && connected()
	})
}
