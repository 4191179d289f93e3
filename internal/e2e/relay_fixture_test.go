package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// localDevPolicy is the documented local-development policy: every call on
// http://127.0.0.1:* is allowed without asking.
const localDevPolicy = `{"version":1,"rules":[{"effect":"allow","class":"*","action":"*","origin":"http://127.0.0.1:*"}]}`

// relay is the chain plus what the relay tests serve: testdata/, a JSON
// echo API, a slow endpoint and a WebSocket echo server, on one loopback
// server.
type relay struct {
	*Chain
	site *httptest.Server
	// slowHit receives once per request that reached /api/slow.
	slowHit chan struct{}
	// gateHit receives once per request that reached /api/gate, which
	// is held until the test closes gate (or the client goes away).
	gateHit chan struct{}
	gate    chan struct{}
}

func startRelay(t testing.TB, opts ChainOptions) *relay {
	t.Helper()
	if opts.Policy == "" {
		opts.Policy = localDevPolicy
	}
	r := &relay{Chain: StartChainWith(t, hostBin, opts), slowHit: make(chan struct{}, 16),
		gateHit: make(chan struct{}, 16), gate: make(chan struct{})}
	stop := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(RepoRoot(), "testdata"))))
	mux.HandleFunc("/api/echo", echoJSON)
	mux.HandleFunc("/api/data.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"items":[{"id":1,"name":"one"},{"id":2,"name":"two"}]}}`)
	})
	mux.HandleFunc("/api/slow", func(w http.ResponseWriter, req *http.Request) {
		select {
		case r.slowHit <- struct{}{}:
		default:
		}
		select { // held until the client goes away or the test ends
		case <-req.Context().Done():
		case <-stop:
		}
	})
	mux.HandleFunc("/api/gate", func(w http.ResponseWriter, req *http.Request) {
		select {
		case r.gateHit <- struct{}{}:
		default:
		}
		select {
		case <-r.gate:
			io.WriteString(w, "open")
		case <-req.Context().Done():
		case <-stop:
		}
	})
	mux.HandleFunc("/ws/echo", wsEcho)
	r.site = httptest.NewServer(mux)
	t.Cleanup(r.site.Close)
	t.Cleanup(func() { close(stop) }) // runs first: frees held requests
	return r
}

// url is a page of the relay site.
func (r *relay) url(path string) string { return r.site.URL + "/" + strings.TrimPrefix(path, "/") }

// echoJSON answers {"method", "query", "body"} with the request's JSON body.
func echoJSON(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var body any
	json.Unmarshal(raw, &body)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"method": req.Method, "query": req.URL.RawQuery, "body": body})
}

// wsEcho echoes every message until the peer closes.
func wsEcho(w http.ResponseWriter, req *http.Request) {
	c, err := websocket.Accept(w, req, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(req.Context(), time.Minute)
	defer cancel()
	for {
		typ, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if c.Write(ctx, typ, msg) != nil {
			return
		}
	}
}

// bearer adds the daemon's token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// client is an MCP client (the official go-sdk) on the daemon's /mcp.
type client struct {
	t  testing.TB
	cs *mcp.ClientSession
}

// mcpClient connects an MCP client named name to the daemon on port with
// token, over streamable HTTP.
func mcpClient(t testing.TB, port int, token, name string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{
		Endpoint:             fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		HTTPClient:           &http.Client{Transport: bearer{token}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

func (r *relay) client(t testing.TB, name string) *client {
	return mcpClient(t, r.Port, r.Server.Token(), name)
}

// answer is a tool result: its text, structuredContent and error flag.
type answer struct {
	Text string
	// Page is Text without Gasoline's lines around page text: what is
	// between the fence lines (untrusted.Body), or Text when not fenced.
	Page    string
	Data    map[string]any
	IsError bool
	Raw     *mcp.CallToolResult
}

// code is the structured error code of a failed call.
func (a answer) code() string { s, _ := a.Data["code"].(string); return s }

// call calls tool with args (bounded) and returns the answer; protocol
// errors fail the test.
func (c *client) call(tool string, args map[string]any) answer {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(c.t, err, "%s %v", tool, args)
	a := answer{IsError: res.IsError, Raw: res}
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			a.Text += tc.Text
		}
	}
	a.Page, _ = untrusted.Body(a.Text)
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &a.Data)
	}
	return a
}

// ok calls and requires success.
func (c *client) ok(tool string, args map[string]any) answer {
	c.t.Helper()
	a := c.call(tool, args)
	require.False(c.t, a.IsError, "%s %v failed: %s", tool, args, a.Text)
	return a
}

// observe is ok("observe", {what, ...}).
func (c *client) observe(what string, args map[string]any) answer {
	c.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	return c.ok("observe", m)
}

// newTab opens url in a new tab of the session and returns the tab id.
func (c *client) newTab(url string) int {
	c.t.Helper()
	a := c.ok("interact", map[string]any{"what": "new_tab", "url": url})
	return int(a.Data["tab_id"].(float64))
}

// until calls observe what until pred holds on the answer, bounded: the
// page's work reaches the daemon asynchronously (console and network
// events come from different Chrome processes), so tests wait for the
// state they assert, never for a fixed time.
func (c *client) until(what string, args map[string]any, bound time.Duration, pred func(answer) bool) answer {
	c.t.Helper()
	deadline := time.Now().Add(bound)
	for {
		a := c.observe(what, args)
		if pred(a) {
			return a
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("observe %s %v: condition not met within %s; last answer:\n%s", what, args, bound, a.Text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// list returns a structured list field.
func list(a answer, field string) []map[string]any {
	var out []map[string]any
	for _, v := range asSlice(a.Data[field]) {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// hasText reports whether a logs answer holds a message containing s.
func hasText(a answer, s string) bool {
	for _, e := range list(a, "entries") {
		if t, _ := e["text"].(string); strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func callParams(tool string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: tool, Arguments: args}
}

// untilError repeats an observe call until it fails with code (the daemon
// learns of a tab's fate from an asynchronous event; a call racing with it
// may fail otherwise, e.g. detached), bounded.
func untilError(t *testing.T, c *client, args map[string]any, code string) answer {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		x := c.call("observe", args)
		if x.IsError && x.code() == code {
			return x
		}
		if time.Now().After(deadline) {
			t.Fatalf("observe %v: no %s error within 10s; last answer: %s", args, code, x.Text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eventually polls an outside process's state (the spawned daemon and
// Chromium send us no signal) until cond holds, failing after bound.
func eventually(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, bound)
		}
		time.Sleep(25 * time.Millisecond)
	}
}
