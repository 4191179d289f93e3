//go:build linux

package e2e

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// agentUser is the OS user the other-user test creates (and removes).
const agentUser = "gasoline-e2e-agent"

// Issue 27, item 7, the second setup that closes the same-user limit: the
// daemon and the browser run as one user, the MCP client as another OS
// user. That client cannot read credentials/ (so neither the approver
// credential nor the link's), and works through the HTTP form
// `gasoline-host mcp-config` prints.
func TestE2EClientAsAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("CI runs as root; this test creates an OS user")
		}
		t.Skip("creating another OS user needs root (CI runs as root): the client-as-another-user setup is not tested here")
	}
	uid, gid := ensureUser(t)
	c := StartChain(t, hostBin)
	// Only credentials/ (0700) may keep the other user out: every folder
	// above the state directory is opened to it.
	for dir := c.Home; dir != "/" && dir != os.TempDir(); dir = filepath.Dir(dir) {
		require.NoError(t, os.Chmod(dir, 0o755))
	}
	cmd := exec.Command(hostBin, "mcp-config", "--client", "claude")
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	out, err := cmd.Output()
	require.NoError(t, err)
	m := regexp.MustCompile(`claude mcp add --transport http gasoline (\S+) --header 'Authorization: Bearer ([0-9a-f]{64})'`).FindSubmatch(out)
	require.NotNil(t, m, "mcp-config printed no HTTP form:\n%s", out)

	bin := filepath.Join(t.TempDir(), "client")
	copyFile(t, os.Args[0], bin)
	require.NoError(t, os.Chmod(filepath.Dir(bin), 0o755))
	client := exec.Command(bin)
	client.Env = []string{"GASOLINE_E2E_AS_CLIENT=1", "GASOLINE_E2E_URL=" + string(m[1]), "GASOLINE_E2E_TOKEN=" + string(m[2]),
		"GASOLINE_E2E_CRED_FILE=" + filepath.Join(c.Home, "credentials", "approver.token"), "HOME=/"}
	client.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	raw, err := client.Output()
	require.NoError(t, err, "%s", raw)
	var r clientReport
	require.NoError(t, json.Unmarshal(raw, &r), "%s", raw)
	require.Equal(t, int(uid), r.ClientUI, "the client ran as the other user")
	require.Equal(t, "permission denied", r.ReadErr, "the other user read the approver credential")
	require.Equal(t, 5, r.Tools)
	require.Equal(t, "ok", r.Health)
}

// ensureUser creates the agent's OS user (removed when the test ends).
func ensureUser(t *testing.T) (uint32, uint32) {
	t.Helper()
	if _, err := user.Lookup(agentUser); err != nil {
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", agentUser).CombinedOutput()
		require.NoError(t, err, "useradd: %s", out)
		t.Cleanup(func() { exec.Command("userdel", agentUser).Run() })
	}
	u, err := user.Lookup(agentUser)
	require.NoError(t, err)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return uint32(uid), uint32(gid)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
