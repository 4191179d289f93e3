//go:build linux

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// pendingRequest makes a gated call that times out waiting for the user and
// returns its request id. The client stays connected until the test ends:
// a session that ends withdraws its pending requests.
func pendingRequest(t *testing.T, e env) string {
	mustState(t, e)
	tok, err := creds.Load(e.home, creds.Agent)
	require.NoError(t, err)
	tr := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + strconv.Itoa(e.port) + "/mcp",
		HTTPClient: &http.Client{Transport: bearerRT{tok}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{
		"what": "policy", "op": "set", "timeout_ms": 20, "rules": map[string]any{"rules": []any{}}}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	raw, _ := json.Marshal(res.StructuredContent)
	var e2 struct {
		Details struct {
			RequestID string `json:"request_id"`
		} `json:"details"`
	}
	require.NoError(t, json.Unmarshal(raw, &e2))
	require.NotEmpty(t, e2.Details.RequestID, "%s", raw)
	return e2.Details.RequestID
}

func startDaemonProc(t *testing.T, e env) {
	cmd := exec.Command(os.Args[0], "daemon")
	cmd.Env = e.vars()
	require.NoError(t, cmd.Start())
	go cmd.Wait()
	waitFor(t, 10*time.Second, e.healthy)
	waitFor(t, 10*time.Second, func() bool { _, err := os.Stat(e.home + "/state.json"); return err == nil })
}

func TestApproveFromTerminalPrintsApprovalID(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script(1) not installed; it provides the terminal")
	}
	e := newEnv(t)
	startDaemonProc(t, e)
	id := pendingRequest(t, e)

	// Not a terminal (an agent's shell tool): refused.
	cmd := exec.Command(os.Args[0], "approve", id)
	cmd.Env = e.vars()
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "must be run by a person at a terminal")

	// At a terminal: the request is shown, and an answer other than y
	// decides nothing.
	atTerminal := func(answer, verb, id string) (string, error) {
		cmd := exec.Command("script", "-qec", os.Args[0]+" "+verb+" "+id, "/dev/null")
		cmd.Env = e.vars()
		cmd.Stdin = strings.NewReader(answer)
		out, err := cmd.Output() // the terminal carries stdout and stderr both
		return strings.ReplaceAll(string(out), "\r", ""), err
	}
	out2, err := atTerminal("n\n", "approve", id)
	require.Error(t, err)
	require.Contains(t, out2, "configure.policy (mutating) on tab 0", "the request is shown before the question")
	require.Contains(t, out2, "Approve? [y/N]")
	require.Contains(t, out2, "not approved")

	// y: the approval id ends the output (the terminal's echo of the
	// answer may come before the question here: the input is given at once).
	out2, err = atTerminal("y\n", "approve", id)
	require.NoError(t, err, "%s", out2)
	fields := strings.Fields(out2)
	require.True(t, strings.HasPrefix(fields[len(fields)-1], "apr_"), "output = %q", out2)

	// A second decision on the same request is refused with a reason.
	out2, err = atTerminal("", "deny", id)
	require.Error(t, err)
	require.Contains(t, out2, "no pending request "+id)
}
