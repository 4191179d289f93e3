//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/coder/websocket"
	"github.com/creack/pty"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	panelview "github.com/gasoline-mcp/gasoline/internal/panel"
)

// remoteAdd runs `gasoline-host remote add` at a terminal (a pty: it
// refuses without one) as the user would, and returns what it printed.
func remoteAdd(t *testing.T, c *Chain, args ...string) string {
	t.Helper()
	cmd := exec.Command(hostBin, append([]string{"remote", "add"}, args...)...)
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	f, err := pty.Start(cmd)
	require.NoError(t, err)
	var out bytes.Buffer
	io.Copy(&out, f) // until the command exits (EIO on Linux)
	require.NoError(t, cmd.Wait(), "%s", out.String())
	f.Close()
	return strings.ReplaceAll(out.String(), "\r", "")
}

// asCredential calls a daemon endpoint with a credential.
func asCredential(t *testing.T, port int, tok, method, path string) int {
	t.Helper()
	req, _ := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(port)+path, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// approveRemote approves the oldest pending request of the remote agent
// named name, as the user would in the panel, after checking the panel
// would say who asks.
func approveRemote(t *testing.T, c *Chain, name string) string {
	t.Helper()
	pending := c.Server.Approvals().Pending("")
	require.NotEmpty(t, pending, "nothing waits for the user")
	views := panelview.Names{Sessions: c.Server.MCPServer().SessionManager()}.Requests(pending[:1])
	require.Equal(t, name, views[0].Remote, "the prompt names the remote agent")
	require.Equal(t, name, views[0].ClientName)
	_, err := c.Server.Approvals().Approve(pending[0].RequestID, approval.Decision{Kind: approval.Once})
	require.NoError(t, err)
	return pending[0].RequestID
}

// approved makes a gated call, approves it as the user and retries it
// with the approval.
func approved(t *testing.T, c *Chain, a *client, name string, args map[string]any) answer {
	t.Helper()
	first := map[string]any{"timeout_ms": 300}
	for k, v := range args {
		first[k] = v
	}
	r := a.call("interact", first)
	require.Equal(t, approval.CodeRequired, r.code(), "%s", r.Text)
	id := approveRemote(t, c, name)
	again := map[string]any{"approval_id": id}
	for k, v := range args {
		again[k] = v
	}
	return a.ok("interact", again)
}

// Issue 34, end to end: the daemon and Chromium on "the laptop", a real
// sshd as "the dev box", `ssh -R` as printed by `gasoline-host remote add`,
// and an MCP client on the dev box side of the forward with the remote
// agent's credential. It drives a tab after the user approves, in a group
// and under prompts carrying its name; it is refused tools, modes and
// sites outside its scope, paths on the user's machine, the approval
// endpoints, the extension link and /shutdown; it uploads by content;
// `remote revoke` ends its access at once.
func TestE2ERemoteAgentOverSSH(t *testing.T) {
	c := StartChain(t, hostBin)
	s := startSSHD(t)
	remotePort := FreePort(t)
	site := c.Pages.URL // http://127.0.0.1:N
	out := remoteAdd(t, c, "devbox", "--tools", "observe,interact.new_tab,interact.navigate,interact.click,interact.upload",
		"--origins", site, "--ttl", "1h", "--client", "claude", "--remote-port", strconv.Itoa(remotePort))
	tok := regexp.MustCompile(`Bearer (gsr_[0-9a-f]{64})`).FindStringSubmatch(out)
	require.NotNil(t, tok, "remote add printed no credential:\n%s", out)
	spec := regexp.MustCompile(`ssh -N -o ExitOnForwardFailure=yes -R (\S+) devbox`).FindStringSubmatch(out)
	require.NotNil(t, spec, "remote add printed no ssh -R command:\n%s", out)
	require.Equal(t, "127.0.0.1:"+strconv.Itoa(remotePort)+":127.0.0.1:"+strconv.Itoa(c.Port), spec[1])
	require.Contains(t, out, "claude mcp add --transport http gasoline http://127.0.0.1:"+strconv.Itoa(remotePort)+"/mcp")
	require.Contains(t, out, "curl -s http://127.0.0.1:"+strconv.Itoa(remotePort)+"/health")

	s.forward(t, spec[1], remotePort)
	require.Contains(t, s.remoteShell(t, "curl -s http://127.0.0.1:"+strconv.Itoa(remotePort)+"/health"), `"service-name":"gasoline"`,
		"the check remote add prints works from the dev box")

	a := mcpClient(t, remotePort, tok[1], "claude-code")
	opened := approved(t, c, a, "devbox", map[string]any{"what": "new_tab", "url": c.PageURL("pages/actions/form.html")})
	require.Contains(t, opened.Text, `"Gasoline · devbox"`, "its tab group carries its name")
	tab := int(opened.Data["tab_id"].(float64))
	snap := a.ok("observe", map[string]any{"what": "snapshot"})
	require.Contains(t, snap.Page, "Avatar")

	t.Run("outside its scope", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"configure", map[string]any{"what": "health"}, "configure.health is outside"},
			{"interact", map[string]any{"what": "execute_js", "script": "1"}, "interact.execute_js is outside"},
			{"interact", map[string]any{"what": "navigate", "url": strings.Replace(site, "127.0.0.1", "localhost", 1) + "/pages/form.html"}, "outside the sites"},
			{"interact", map[string]any{"what": "upload", "selector": "#avatar", "files": []any{"/etc/hostname"}}, "cannot name files on the user's machine"},
		} {
			r := a.call(tc.tool, tc.args)
			require.True(t, r.IsError, "%s %v ran: %s", tc.tool, tc.args, r.Text)
			require.Equal(t, "out_of_scope", r.code(), r.Text)
			require.Contains(t, r.Text, tc.want)
		}
		require.Empty(t, c.Server.Approvals().Pending(""), "nothing out of scope reached the user")
	})

	t.Run("upload by content", func(t *testing.T) {
		content := base64.StdEncoding.EncodeToString([]byte("hello from the dev box\n"))
		r := approved(t, c, a, "devbox", map[string]any{"what": "upload", "selector": "#avatar",
			"file_contents": []any{map[string]any{"name": "notes.txt", "type": "text/plain", "base64": content}}})
		require.Contains(t, r.Text, "notes.txt")
		got := pageEvalIn(t, c, tab, `(async () => { const f = document.getElementById('avatar').files[0]; return f.name + '|' + f.type + '|' + await f.text(); })()`)
		require.Equal(t, "notes.txt|text/plain|hello from the dev box\n", got)
	})

	t.Run("what no agent credential does", func(t *testing.T) {
		require.Equal(t, http.StatusForbidden, asCredential(t, remotePort, tok[1], "GET", "/approvals"))
		require.Equal(t, http.StatusForbidden, asCredential(t, remotePort, tok[1], "POST", "/approvals/req_x/approve"))
		require.Equal(t, http.StatusForbidden, asCredential(t, remotePort, tok[1], "POST", "/remotes/devbox/revoke"))
		require.Equal(t, http.StatusForbidden, asCredential(t, remotePort, tok[1], "POST", "/shutdown"))
		_, resp, err := websocket.Dial(t.Context(), "ws://127.0.0.1:"+strconv.Itoa(remotePort)+"/ws/host",
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + tok[1]}}})
		require.Error(t, err)
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		link := dialLink(t, remotePort, tok[1], "", "") // the stdio relay's link, through the forward
		require.Contains(t, link.answer.Error, "the remote credential is not valid here")
		h, ok := getHealth(c.Port)
		require.True(t, ok, "the daemon is still up")
		require.Equal(t, "connected", h.TransportStatus.Extension)
	})

	t.Run("revoke ends its access at once", func(t *testing.T) {
		cmd := exec.Command(hostBin, "remote", "revoke", "devbox")
		cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
		outRevoke, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", outRevoke)
		require.Contains(t, string(outRevoke), "its sessions have ended")
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err = a.cs.CallTool(ctx, callParams("observe", map[string]any{"what": "tabs"}))
		require.Error(t, err, "a revoked remote agent's call ran")
		require.Equal(t, http.StatusForbidden, asCredential(t, remotePort, tok[1], "POST", "/mcp"))
		for _, in := range c.Server.MCPServer().SessionManager().List() {
			require.NotEqual(t, "devbox", in.Remote, "its session ended")
		}
	})
}

// pageEvalIn evaluates an expression (a promise is awaited) in a tab over
// CDP, not through the agent's tools, and returns its string value.
func pageEvalIn(t *testing.T, c *Chain, tab int, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	yes := true
	res, err := cdproto.Call(ctx, c.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
	require.NoError(t, err)
	var s string
	require.NoError(t, json.Unmarshal(res.Result.Value, &s), "%s", res.Result.Value)
	return s
}
