//go:build unix

package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

// bearerRT adds the agent credential to every request, as a user's HTTP
// client configuration does.
type bearerRT struct{ tok string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// userClient connects the official go-sdk client as a user configures it:
// the endpoint and the credential, every other setting at its default
// (standalone SSE stream, 5 reconnect attempts).
func userClient(t *testing.T, d *daemon, token string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: d.url("/mcp"), HTTPClient: &http.Client{Transport: bearerRT{token}}}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "user", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// restart starts a new daemon on d's state directory and port (as the
// native host's launcher or the service manager would) and waits for it.
func (d *daemon) restart(t *testing.T) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "daemon")
	cmd.Env = d.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	d.cmd, d.exited = cmd, exited
	go func() { d.exitErr = cmd.Wait(); close(exited) }()
	d.waitReady(t, cmd.Process.Pid)
}

// TestHTTPCallInFlightWhenDaemonDies: a call waits in a daemon that is
// SIGKILLed. The client reconnects its stream with Last-Event-ID; the
// next daemon answers the call with a retryable daemon_restarted error
// instead of leaving it to the client's own timeout, and the same client
// configuration (the agent credential is stable) connects again and works.
func TestHTTPCallInFlightWhenDaemonDies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	d := startDaemon(t)
	token := d.token
	cs := userClient(t, d, token)
	errc := make(chan error, 1)
	go func() { // waits for an approval nobody gives, up to 120 s
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "configure",
			Arguments: map[string]any{"what": "store", "key": "k", "value": "v", "timeout_ms": 120000}})
		errc <- err
	}()
	waitPending(t, d)
	if err := syscall.Kill(d.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.exited
	d.restart(t)

	var err error
	select {
	case err = <-errc:
	case <-time.After(60 * time.Second): // a safety net, half the call's own budget
		t.Fatal("the call in flight was never answered")
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != -32000 {
		t.Fatalf("call in flight: %v, want the daemon_restarted JSON-RPC error", err)
	}
	var data struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || data.Code != "daemon_restarted" || !data.Retryable {
		t.Fatalf("error data %s", rpc.Data)
	}
	if d.token != token {
		t.Fatal("the agent credential changed across the restart")
	}
	again := userClient(t, d, token)
	res, err := again.CallTool(context.Background(), &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{"what": "health"}})
	if err != nil || res.IsError {
		t.Fatalf("after reconnecting: %v %v", err, res)
	}
}

// waitPending waits until the daemon lists a pending approval (the call
// is in flight inside it).
func waitPending(t *testing.T, d *daemon) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n := pendingApprovals(t, d); n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never reached the approval gate")
		}
		time.Sleep(20 * time.Millisecond) // polling another process
	}
}

// pendingApprovals counts the daemon's pending approval requests (GET
// /approvals with the approver credential).
func pendingApprovals(t *testing.T, d *daemon) int {
	t.Helper()
	tok, err := creds.Load(d.dir, creds.Approver)
	if err != nil {
		return 0
	}
	req, _ := http.NewRequest("GET", d.url("/approvals"), nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var body struct {
		Pending []json.RawMessage `json:"pending"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	return len(body.Pending)
}
