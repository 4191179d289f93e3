//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// Issue 18, items 3 and 4 end to end: the daemon is SIGKILLed while an
// HTTP client (the go-sdk as users configure it) and a stdio client each
// wait on a call in the browser. Each gets a retryable daemon_restarted
// error (the stdio one under its odd id, byte for byte); the native host
// brings a daemon back; the HTTP client's configuration (the same agent
// credential) connects again and goes on, and the stdio relay goes on by
// itself.
func TestE2EDaemonKilledUnderClients(t *testing.T) {
	s := startSpawned(t, localDevPolicy)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	page := s.site + "/pages/title.html"

	h := &client{t: t, cs: s.userClient(t, "http-agent")}
	tabH := h.newTab(page)
	st := startRawStdio(t, s.env())
	st.initialize()
	st.call(`"open"`, "interact", map[string]any{"what": "new_tab", "url": page})
	tabS := gjson.GetBytes(st.recvID(`"open"`, time.Minute), "result.structuredContent.tab_id").Int()
	require.NotZero(t, tabS)

	wait := func(tab int64) map[string]any { // never satisfied: held until its budget or the daemon's end
		return map[string]any{"what": "wait_for", "selector": "#never-there", "tab_id": tab, "timeout_ms": 120000}
	}
	httpErr := make(chan error, 1)
	go func() {
		_, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "interact", Arguments: wait(int64(tabH))})
		httpErr <- err
	}()
	st.call(`1.5`, "interact", wait(tabS))
	// Both calls are in the daemon: each session lists its wait as pending.
	h.until("pending_commands", nil, 30*time.Second, func(a answer) bool { return strings.Contains(a.Text, `"pending"`) })
	for n := 0; ; n++ {
		id := `"pending-` + strconv.Itoa(n) + `"`
		st.call(id, "observe", map[string]any{"what": "pending_commands"})
		if bytes.Contains(st.recvID(id, 30*time.Second), []byte(`\"status\":\"pending\"`)) {
			break
		}
		require.Less(t, n, 500, "the stdio call never reached the daemon")
		time.Sleep(20 * time.Millisecond) // polling another process's state
	}

	old := s.pid(t)
	require.NoError(t, syscall.Kill(old, syscall.SIGKILL))

	lost := st.recvID(`1.5`, 30*time.Second)
	require.True(t, bytes.HasPrefix(lost, []byte(`{"jsonrpc":"2.0","id":1.5,"error":`)), "%s", lost)
	require.Equal(t, "daemon_restarted", gjson.GetBytes(lost, "error.data.code").String())
	require.True(t, gjson.GetBytes(lost, "error.data.retryable").Bool())

	var err error
	select {
	case err = <-httpErr:
	case <-time.After(90 * time.Second): // a safety net below the call's own 120 s
		t.Fatal("the HTTP call in flight was never answered")
	}
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &rpc), "HTTP call in flight: %v", err)
	var data struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	}
	require.NoError(t, json.Unmarshal(rpc.Data, &data), "%v", err)
	require.Equal(t, "daemon_restarted", data.Code, "%v", err)
	require.True(t, data.Retryable)

	s.waitConnected(t, old) // the native host brought a daemon back (a crash leaves no stop marker)
	again := &client{t: t, cs: s.userClient(t, "http-agent")}
	require.NotZero(t, again.newTab(page), "the same client configuration goes on")

	st.call(`9007199254740993`, "observe", map[string]any{"what": "tabs"})
	next := st.recvID(`9007199254740993`, time.Minute)
	require.False(t, gjson.GetBytes(next, "error").Exists(), "%s", next)
	require.False(t, gjson.GetBytes(next, "result.isError").Bool(), "%s", next)
}

// Issue 18 item 4 end to end: JSON-RPC ids through `gasoline-host --mcp`
// to the real daemon and browser and back, byte for byte; null refused;
// the relay exits soon after stdin ends with a browser call in flight.
func TestE2EJSONRPCIDs(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	st := startRawStdio(t, []string{"GASOLINE_HOME=" + r.Home, "GASOLINE_PORT=" + strconv.Itoa(r.Port)})
	st.initialize()
	page := r.url("pages/title.html")

	// 1.5 and 1 in flight at once: each answer carries its own id.
	st.call(`1.5`, "interact", map[string]any{"what": "new_tab", "url": page})
	st.call(`1`, "observe", map[string]any{"what": "tabs"})
	got := map[string][]byte{}
	for len(got) < 2 {
		l := st.recv(time.Minute)
		if id := gjson.GetBytes(l, "id"); id.Exists() {
			got[id.Raw] = l
		}
	}
	tab := gjson.GetBytes(got["1.5"], "result.structuredContent.tab_id").Int()
	require.NotZero(t, tab, "new_tab answered under 1.5: %s", got["1.5"])
	require.True(t, gjson.GetBytes(got["1"], "result").Exists(), "%s", got["1"])

	for _, id := range []string{`9007199254740993`, `1e29`, `-0`, `"a\u0062"`, `""`} {
		st.call(id, "observe", map[string]any{"what": "page", "tab_id": tab})
		l := st.recvID(id, time.Minute)
		require.True(t, bytes.HasPrefix(l, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":`)), "%s", l)
		require.Contains(t, gjson.GetBytes(l, "result.structuredContent.url").String(), "pages/title.html", "%s", l)
	}

	st.send(`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"observe","arguments":{"what":"tabs"}}}`)
	refused := st.recvID(`null`, 30*time.Second)
	require.Equal(t, int64(-32600), gjson.GetBytes(refused, "error.code").Int(), "%s", refused)

	st.call(`2.5`, "interact", map[string]any{"what": "wait_for", "selector": "#never-there", "tab_id": tab, "timeout_ms": 120000})
	require.NoError(t, st.close())
	exiting := st.recvID(`2.5`, 30*time.Second)
	require.Equal(t, "relay_exiting", gjson.GetBytes(exiting, "error.data.code").String(), "%s", exiting)
	select {
	case err := <-st.exit:
		require.NoError(t, err)
	case <-time.After(20 * time.Second): // a safety net, far below the call's 120 s
		t.Fatal("--mcp did not exit after its input ended")
	}
}
