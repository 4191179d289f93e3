//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/creds"
)

// agentCredentialFromMCPConfig runs `gasoline-host mcp-config --client
// claude` as a user would and returns the bearer credential its streamable
// HTTP line carries.
func agentCredentialFromMCPConfig(t *testing.T, c *Chain) string {
	t.Helper()
	cmd := exec.Command(hostBin, "mcp-config", "--client", "claude")
	cmd.Env = append(cmd.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	out, err := cmd.Output()
	require.NoError(t, err)
	m := regexp.MustCompile(`--header 'Authorization: Bearer ([0-9a-f]{64})'`).FindSubmatch(out)
	require.NotNil(t, m, "mcp-config printed no real credential:\n%s", out)
	return string(m[1])
}

// asAgent calls a daemon endpoint over HTTP with the agent's credential.
func asAgent(t *testing.T, c *Chain, tok, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(c.Port)+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(raw)
}

// pageText reads an element's text straight from the page over CDP (not
// through the agent's tools).
func pageText(t *testing.T, c *Chain, tab int, id string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	yes := true
	res, err := cdproto.Call(ctx, c.Server.CDP(tab), cdpruntime.Evaluate, cdpruntime.EvaluateParams{
		Expression: `document.getElementById(` + strconv.Quote(id) + `).textContent`, ReturnByValue: &yes})
	require.NoError(t, err)
	var s string
	require.NoError(t, json.Unmarshal(res.Result.Value, &s))
	return s
}

// TestE2EAgentCannotApproveItsOwnRequest: an HTTP agent configured exactly
// as `gasoline-host mcp-config` says cannot approve, deny or site-grant its
// own request, cannot list or revoke grants, cannot open the extension
// link and cannot stop the daemon; a retry with an invented id does not
// act; a batch's pending request names every step and target, and its
// approval covers exactly those steps; a gated call on a tab the session
// does not own is refused before anything is asked; and the same
// credential opens an MCP session after a daemon restart.
func TestE2EAgentCannotApproveItsOwnRequest(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: gateClicksPolicy})
	tok := agentCredentialFromMCPConfig(t, c)
	require.Equal(t, c.Server.Token(), tok, "mcp-config prints the daemon's agent credential")
	a := mcpClient(t, c.Port, tok, "trust-agent")
	tab := a.newTab(c.PageURL("pages/trust/batch.html"))
	snap := a.ok("observe", map[string]any{"what": "snapshot", "interactive_only": true}).Text
	press := refOf(t, snap, `button "Press me"`)

	click := a.call("interact", map[string]any{"what": "click", "ref": press, "timeout_ms": 300})
	require.Equal(t, approval.CodeRequired, click.code(), click.Text)
	reqID := click.Data["details"].(map[string]any)["request_id"].(string)
	require.True(t, strings.HasPrefix(reqID, "req_"))

	t.Run("the agent credential decides nothing", func(t *testing.T) {
		for _, tc := range []struct{ method, path, body string }{
			{"POST", "/approvals/" + reqID + "/approve", `{"kind":"once"}`},
			{"POST", "/approvals/" + reqID + "/approve", `{"kind":"action","minutes":60}`},
			{"POST", "/approvals/" + reqID + "/approve", `{"kind":"session"}`},
			{"POST", "/approvals/" + reqID + "/deny", `{"reason":"agent"}`},
			{"GET", "/approvals", ""},
			{"POST", "/grants/grt_x/revoke", ""},
			{"POST", "/grants/pln_x/revoke", ""},
			{"POST", "/shutdown", ""},
		} {
			code, body := asAgent(t, c, tok, tc.method, tc.path, tc.body)
			require.Equal(t, http.StatusForbidden, code, "%s %s: %s", tc.method, tc.path, body)
			require.Contains(t, body, "approver credential", "the refusal names the credential it needs")
		}
		_, resp, err := websocket.Dial(t.Context(), "ws://127.0.0.1:"+strconv.Itoa(c.Port)+"/ws/host",
			&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + tok}}})
		require.Error(t, err, "the agent credential opened the extension link")
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		h, ok := getHealth(c.Port)
		require.True(t, ok, "the daemon is still up")
		require.Equal(t, "connected", h.TransportStatus.Extension)
		pending := a.observe("approvals", nil)
		require.Len(t, list(pending, "pending"), 1, "the request is still pending: %s", pending.Text)
	})

	t.Run("a self-invented id does not act", func(t *testing.T) {
		for _, id := range []string{"apr_" + strings.Repeat("A", 26), "apr_x", reqID} {
			r := a.call("interact", map[string]any{"what": "click", "ref": press, "approval_id": id, "timeout_ms": 200})
			require.True(t, r.IsError, "retry with %s ran: %s", id, r.Text)
		}
		require.Equal(t, "", pageText(t, c, tab, "out"), "nothing ran")
	})

	t.Run("a batch names every step and is approved for exactly those", func(t *testing.T) {
		name := refOf(t, snap, `textbox "Name"`)
		steps := []any{
			map[string]any{"what": "type", "ref": name, "text": "Ada"},
			map[string]any{"what": "click", "ref": press},
		}
		b := a.call("interact", map[string]any{"what": "batch", "steps": steps, "timeout_ms": 300})
		require.Equal(t, approval.CodeRequired, b.code(), b.Text)
		bID := b.Data["details"].(map[string]any)["request_id"].(string)
		var req map[string]any
		for _, p := range list(a.observe("approvals", nil), "pending") {
			if p["request_id"] == bID {
				req = p
			}
		}
		require.NotNil(t, req, "observe approvals lists the batch")
		require.Equal(t, []any{`type "Ada" into textbox "Name"`, `click button "Press me"`}, req["steps"])
		require.Equal(t, "mutating", req["class"])

		apr := approveAsUser(t, c, bID)
		other := []any{steps[0], map[string]any{"what": "click", "ref": refOf(t, snap, `button "Something else"`)}}
		r := a.call("interact", map[string]any{"what": "batch", "steps": other, "approval_id": apr, "timeout_ms": 2000})
		require.Equal(t, approval.CodeRejected, r.code(), "an approval for these steps ran others: %s", r.Text)
		require.Equal(t, "", pageText(t, c, tab, "out"))
		a.ok("interact", map[string]any{"what": "batch", "steps": steps, "approval_id": apr})
		require.Equal(t, "hello Ada", pageText(t, c, tab, "out"))
	})

	t.Run("a sensitive step is refused before anything is asked", func(t *testing.T) {
		before := len(list(a.observe("approvals", nil), "pending"))
		r := a.call("interact", map[string]any{"what": "batch", "steps": []any{
			map[string]any{"what": "execute_js", "script": "document.title = 'x'"}}, "timeout_ms": 300})
		require.Equal(t, "invalid_argument", r.code(), r.Text)
		require.Len(t, list(a.observe("approvals", nil), "pending"), before, "no request was made")
	})

	t.Run("a tab the session does not own is refused before asking", func(t *testing.T) {
		before := len(list(a.observe("approvals", nil), "pending"))
		userTab := userOwnedTab(t, c, a)
		r := a.call("interact", map[string]any{"what": "click", "x": 5, "y": 5, "tab_id": userTab, "timeout_ms": 300})
		require.True(t, r.IsError)
		require.NotEqual(t, approval.CodeRequired, r.code(), r.Text)
		require.Len(t, list(a.observe("approvals", nil), "pending"), before, "no request was made")
	})

	t.Run("the credential survives a daemon restart", func(t *testing.T) {
		require.NoError(t, c.StopDaemon())
		// The native host spawns a new daemon for the extension.
		eventually(t, 30*time.Second, "a new daemon", func() bool {
			h, ok := getHealth(c.Port)
			return ok && h.PID != 0
		})
		onDisk, err := creds.Load(c.Home, creds.Agent)
		require.NoError(t, err)
		require.Equal(t, tok, onDisk)
		again := mcpClient(t, c.Port, tok, "trust-agent-again")
		h := again.ok("configure", map[string]any{"what": "health"})
		require.Equal(t, "gasoline", h.Data["service"])
	})
}

// approveAsUser approves a request with the approver credential, as
// `gasoline-host approve` does, and returns the approval id.
func approveAsUser(t *testing.T, c *Chain, reqID string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(c.Port)+"/approvals/"+reqID+"/approve", strings.NewReader(`{"kind":"once"}`))
	req.Header.Set("Authorization", "Bearer "+c.Server.Credential(creds.Approver))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", out)
	return out["approval_id"].(string)
}

// userOwnedTab returns a tab of the browser the session does not own (the
// browser's own first tab), read from the extension directly.
func userOwnedTab(t *testing.T, c *Chain, a *client) int {
	t.Helper()
	mine := map[float64]bool{}
	for _, tb := range list(a.observe("tabs", nil), "tabs") {
		mine[tb["id"].(float64)] = true
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	raw, err := c.Server.Extensions().Call(ctx, "tabs.query", struct{}{})
	require.NoError(t, err)
	var q struct {
		Tabs []struct {
			ID int `json:"id"`
		} `json:"tabs"`
	}
	require.NoError(t, json.Unmarshal(raw, &q))
	for _, tb := range q.Tabs {
		if tb.ID > 0 && !mine[float64(tb.ID)] {
			return tb.ID
		}
	}
	t.Fatal("the browser has no tab the session does not own")
	return 0
}
