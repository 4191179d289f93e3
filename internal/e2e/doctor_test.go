//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/testbrowser"
)

type doctorEnv struct {
	home string
	port int
	udd  string
}

func newDoctorEnv(t *testing.T) doctorEnv {
	e := doctorEnv{home: t.TempDir(), port: FreePort(t), udd: t.TempDir()}
	t.Cleanup(func() {
		if st, err := state.Read(e.home); err == nil {
			stopProcess(st.PID) // and wait: its exit writes stopped.json into the home TempDir removes
		}
	})
	return e
}

func (e doctorEnv) env() []string {
	return append(os.Environ(), "GASOLINE_HOME="+e.home, "GASOLINE_PORT="+strconv.Itoa(e.port))
}

// doctor runs `gasoline-host doctor` for the test profile and returns its
// output and exit code.
func (e doctorEnv) doctor(t *testing.T) (string, int) {
	cmd := exec.Command(hostBin, "doctor", "--browser", "chromium", "--user-data-dir", e.udd)
	cmd.Env = e.env()
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	require.NoError(t, err, "%s", out)
	return string(out), 0
}

func (e doctorEnv) startDaemon(t *testing.T) {
	cmd := exec.Command(hostBin, "daemon")
	cmd.Env = e.env()
	require.NoError(t, cmd.Start())
	go cmd.Wait()
	// Ready means answering and named by state.json (written last).
	eventually(t, 10*time.Second, "daemon up", func() bool {
		h, ok := getHealth(e.port)
		st, err := state.Read(e.home)
		return ok && err == nil && st.PID == h.PID
	})
}

func TestE2EDoctorNoDaemon(t *testing.T) {
	e := newDoctorEnv(t)
	Install(t, hostBin, e.udd)
	out, code := e.doctor(t)
	require.Equal(t, 1, code, out)
	require.Regexp(t, `FAIL\s+daemon`, out)
	require.Contains(t, out, "fix: "+hostBin+" daemon")
	_, err := state.Read(e.home)
	require.ErrorIs(t, err, state.ErrNoState, "doctor must not start a daemon")
}

func TestE2EDoctorWrongManifestPath(t *testing.T) {
	e := newDoctorEnv(t)
	Install(t, hostBin, e.udd)
	mf := filepath.Join(e.udd, "NativeMessagingHosts", "com.gasoline.host.json")
	raw, err := os.ReadFile(mf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(mf, []byte(replaceOnce(string(raw), hostBin, "/nonexistent/gasoline-host")), 0o644))
	e.startDaemon(t)
	out, code := e.doctor(t)
	require.Equal(t, 1, code, out)
	require.Regexp(t, `FAIL\s+manifest \(chromium\)`, out)
	require.Contains(t, out, "install --browser chromium --user-data-dir "+e.udd)
}

func TestE2EDoctorExtensionAbsent(t *testing.T) {
	e := newDoctorEnv(t)
	Install(t, hostBin, e.udd)
	e.startDaemon(t)
	out, code := e.doctor(t)
	require.Equal(t, 1, code, out)
	require.Regexp(t, `FAIL\s+extension`, out)
	require.Contains(t, out, "Load unpacked")
	require.Regexp(t, `ok\s+MCP stdio`, out)
	require.Regexp(t, `ok\s+MCP HTTP`, out)
}

func TestE2EDoctorAllWell(t *testing.T) {
	e := newDoctorEnv(t)
	Install(t, hostBin, e.udd)
	testbrowser.Start(t, testbrowser.Options{
		ExtensionDir: filepath.Join(RepoRoot(), "extension"),
		UserDataDir:  e.udd,
		Env:          []string{"GASOLINE_HOME=" + e.home, "GASOLINE_PORT=" + strconv.Itoa(e.port)},
	})
	eventually(t, 30*time.Second, "extension connected", func() bool {
		h, ok := getHealth(e.port)
		return ok && h.TransportStatus.Extension == "connected"
	})
	out, code := e.doctor(t)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "all checks passed")
}

func replaceOnce(s, old, new string) string {
	i := len(s)
	for j := 0; j+len(old) <= len(s); j++ {
		if s[j:j+len(old)] == old {
			i = j
			break
		}
	}
	if i == len(s) {
		return s
	}
	return s[:i] + new + s[i+len(old):]
}
