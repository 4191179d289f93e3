//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// agentUser is the OS user the other-user test creates (and removes).
const agentUser = "gasoline-e2e-agent"

// clientReport is what the client run as another user found.
type clientReport struct {
	ReadErr  string `json:"read_err"`
	Tools    int    `json:"tools"`
	Health   string `json:"health"`
	ClientUI int    `json:"uid"`
}

// asClient is the test binary's client mode (TestMain runs it when
// GASOLINE_E2E_AS_CLIENT is set): try to read the credential file, then
// connect with the URL and credential mcp-config printed, list the tools
// and call configure health; print what happened as JSON.
func asClient() int {
	var r clientReport
	r.ClientUI = os.Getuid()
	if _, err := os.ReadFile(os.Getenv("GASOLINE_E2E_CRED_FILE")); err != nil {
		r.ReadErr = err.Error()
		if errors.Is(err, fs.ErrPermission) {
			r.ReadErr = "permission denied"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: os.Getenv("GASOLINE_E2E_URL"),
		HTTPClient: &http.Client{Transport: bearer{os.Getenv("GASOLINE_E2E_TOKEN")}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "other-user", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		defer cs.Close()
		if lt, err := cs.ListTools(ctx, nil); err == nil {
			r.Tools = len(lt.Tools)
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{"what": "health"}}); err == nil && !res.IsError {
			r.Health = "ok"
		}
	} else {
		r.Health = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

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
