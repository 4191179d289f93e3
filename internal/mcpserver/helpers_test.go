package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/httpguard"
	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// fixture is an in-process Server on an httptest server (/mcp, no guard:
// the guard is tested end to end on the real daemon) and a loopback
// listener for the relay's link (ServeLink, with testCreds).
type fixture struct {
	s      *Server
	srv    *httptest.Server
	linkLn net.Listener
	stop   func() // stops the server and waits (idempotent); cleanup calls it too
	// served, when set, hears of each /mcp request once the daemon's
	// handler returned (afterServed).
	served atomic.Pointer[func(*http.Request)]
}

// afterServed calls fn with each /mcp request after the daemon's handler
// for it returned: a test's signal that the server is done with a request
// (a stream it held is released).
func (f *fixture) afterServed(fn func(*http.Request)) { f.served.Store(&fn) }

func newFixture(t testing.TB, opts *Options) *fixture {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Version == "" {
		opts.Version = "test"
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Redact == nil {
		opts.Redact = fakeRedactor{}
	}
	if opts.Gate == nil {
		opts.Gate = refuseGate
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{s: s}
	mcpH := asAgent(s.HTTPHandler())
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcpH.ServeHTTP(w, r)
		if fn := f.served.Load(); fn != nil {
			(*fn)(r)
		}
	}))
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	srv.Start()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var links sync.WaitGroup
	links.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			links.Go(func() { s.ServeLink(ctx, c, testCreds{}) })
		}
	})
	f.linkLn = ln
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			ln.Close()
			links.Wait()
			s.Wait()
			srv.Close()
		})
	}
	t.Cleanup(stop)
	f.srv, f.stop = srv, stop
	return f
}

// asAgent stands in for the guard: every request carries the local agent
// credential's identity (a request with "Authorization: Bearer remote:X"
// carries remote agent X's instead).
func asAgent(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := creds.Identity{Role: creds.Agent, Principal: creds.PrincipalAgent}
		if name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer remote:"); ok {
			id = creds.Identity{Role: creds.Remote, Principal: "remote:" + name, Name: name}
		}
		if r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer test")
		}
		h.ServeHTTP(w, r.WithContext(httpguard.WithIdentity(r.Context(), id)))
	})
}

// Credentials of testCreds: the agent's, the link's (a valid credential
// of another role) and a remote agent's ("remote:" + its name).
const (
	agentTok = "agent-credential"
	linkTok  = "link-credential"
)

// testCreds stands in for the daemon's creds.Set on the link.
type testCreds struct{}

func (testCreds) Identify(tok string) creds.Identity {
	switch {
	case tok == agentTok:
		return creds.Identity{Role: creds.Agent, Principal: creds.PrincipalAgent}
	case tok == linkTok:
		return creds.Identity{Role: creds.Link}
	case strings.HasPrefix(tok, "remote:"):
		return creds.Identity{Role: creds.Remote, Principal: tok, Name: tok[len("remote:"):]}
	}
	return creds.Identity{Role: creds.None}
}

// codeNoApprover is refuseGate's code.
const codeNoApprover = "test_no_approver"

// refuseGate refuses every gated call, as a user who never answers would.
func refuseGate(_ context.Context, c *Call) *tools.Error {
	return tools.Errorf(codeNoApprover, "%s needs the user's approval; this test has no approver", c.Mode.Key())
}

// client connects an SDK client over in-memory transports.
func (f *fixture) client(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := f.s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	// The session-ful handshake, as on both daemon transports.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "unit", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns the result with its structuredContent
// decoded.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s %v: %v", tool, args, err)
	}
	return res, structured(t, res)
}

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	return m
}

// linkClient speaks raw JSON-RPC on the relay's link, as the relay does.
type linkClient struct {
	t       *testing.T
	c       net.Conn
	br      *bufio.Reader
	session string
	key     string // the resume key the daemon handed (a new session only)
	resumed bool
}

// handle is what resumes the session: its id and resume key, as the relay
// keeps them ("ID.KEY").
func (w *linkClient) handle() string { return w.session + "." + w.key }

// dialLink connects to the fixture's link and sends hello, returning the
// daemon's answer.
func (f *fixture) dialLink(t *testing.T, h mcpline.Hello) (net.Conn, *bufio.Reader, mcpline.Answer) {
	t.Helper()
	c, err := net.Dial("tcp4", f.linkLn.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write(mcpline.Marshal(h)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := br.ReadBytes('\n')
	c.SetReadDeadline(time.Time{})
	var a mcpline.Answer
	if err != nil || json.Unmarshal(line, &a) != nil {
		t.Fatalf("hello answered %q (%v)", line, err)
	}
	return c, br, a
}

// link opens a link as the relay does; hint is "" for a new session, or
// "ID.KEY" (a client's handle) or a bare id to ask to resume.
func (f *fixture) link(t *testing.T, hint string) *linkClient {
	t.Helper()
	h := mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: agentTok, Version: "test"}
	h.Session, h.ResumeKey, _ = strings.Cut(hint, ".")
	c, br, a := f.dialLink(t, h)
	if a.Error != "" {
		t.Fatalf("hello refused: %s", a.Error)
	}
	return &linkClient{t: t, c: c, br: br, session: a.Session, key: a.ResumeKey, resumed: a.Resumed}
}

func (w *linkClient) send(msg string) {
	w.t.Helper()
	w.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := w.c.Write([]byte(msg + "\n")); err != nil {
		w.t.Fatal(err)
	}
}

// recvRaw returns the next line from the daemon.
func (w *linkClient) recvRaw() ([]byte, error) {
	w.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer w.c.SetReadDeadline(time.Time{})
	return w.br.ReadBytes('\n')
}

func (w *linkClient) recv() map[string]any {
	w.t.Helper()
	data, err := w.recvRaw()
	if err != nil {
		w.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		w.t.Fatalf("%s: %v", data, err)
	}
	return m
}

// close drops the connection as a relay that loses it would.
func (w *linkClient) close() { w.c.Close() }

// end says the client ended the session, as the relay does at stdin's end.
func (w *linkClient) end() {
	w.send(mcpline.End)
	w.c.Close()
}

// roundTrip sends a request and returns the next message (the answer:
// these tests send one request at a time).
func (w *linkClient) roundTrip(msg string) map[string]any {
	w.send(msg)
	return w.recv()
}

const initMsg = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func (w *linkClient) initialize() {
	w.t.Helper()
	if got := w.roundTrip(initMsg); got["result"] == nil {
		w.t.Fatalf("initialize: %v", got)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// httpPost posts one message on /mcp and returns the status and the
// JSON-RPC messages of the answer (JSON body or SSE data lines).
func (f *fixture) httpPost(t *testing.T, sid, body string) (int, http.Header, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, resp.Header, readMessages(t, resp)
}

func readMessages(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var datas [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, MaxMessage)
		for sc.Scan() {
			if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok && len(bytes.TrimSpace(d)) > 0 {
				datas = append(datas, bytes.Clone(d))
			}
		}
	} else if len(bytes.TrimSpace(raw)) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		datas = append(datas, raw)
	}
	var out []map[string]any
	for _, d := range datas {
		var m map[string]any
		if err := json.Unmarshal(d, &m); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		out = append(out, m)
	}
	return out
}

func (f *fixture) httpSession(t *testing.T) string {
	t.Helper()
	status, hdr, msgs := f.httpPost(t, "", initMsg)
	if status != 200 || len(msgs) != 1 || msgs[0]["result"] == nil {
		t.Fatalf("initialize: %d %v", status, msgs)
	}
	sid := hdr.Get("Mcp-Session-Id")
	if status, _, _ := f.httpPost(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("initialized: %d", status)
	}
	return sid
}

// dig walks a decoded JSON value by keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
