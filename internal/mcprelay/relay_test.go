package mcprelay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// fakeDaemon accepts the relay's links and hands them to the test.
type fakeDaemon struct {
	ln      net.Listener
	conns   chan *daemonConn
	resumed atomic.Bool // answer resumed: true
	dir     string      // its state directory, with the agent credential
	version string      // answered as the daemon's version
}

// daemonConn reads continuously, like the real daemon.
type daemonConn struct {
	t    *testing.T
	c    net.Conn
	hint string // the session the relay asked to resume
	key  string // and the resume key it presented
	msgs chan []byte
	// ended is whether the relay sent mcpline.End, set before msgs is
	// closed.
	ended bool
}

func newFakeDaemon(t *testing.T) *fakeDaemon {
	f := &fakeDaemon{conns: make(chan *daemonConn, 4), dir: t.TempDir()}
	tok, err := creds.Ensure(f.dir, creds.Agent)
	if err != nil {
		t.Fatal(err)
	}
	if f.ln, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := f.ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { f.serve(t, c, tok) })
		}
	})
	t.Cleanup(func() { f.ln.Close(); wg.Wait() })
	return f
}

// serve answers a hello as the daemon does, then reads lines.
func (f *fakeDaemon) serve(t *testing.T, c net.Conn, tok string) {
	defer c.Close()
	br := bufio.NewReader(c)
	first, err := mcpline.Read(br, mcpline.MaxHello)
	var h mcpline.Hello
	if err != nil || json.Unmarshal(first.Data, &h) != nil || h.Gasoline != mcpline.HelloKind || h.Credential != tok {
		c.Write(mcpline.Marshal(mcpline.Answer{Error: "no"}))
		return
	}
	a := mcpline.Answer{Session: "s1", Resumed: f.resumed.Load(), Version: f.version}
	if !a.Resumed {
		a.ResumeKey = "k1"
	}
	c.Write(mcpline.Marshal(a))
	dc := &daemonConn{t: t, c: c, hint: h.Session, key: h.ResumeKey, msgs: make(chan []byte, 16)}
	f.conns <- dc
	defer close(dc.msgs)
	for {
		ln, err := mcpline.Read(br, MaxMessage)
		if mcpline.IsEnd(ln.Data) {
			dc.ended = true
			return
		}
		if !ln.Blank() {
			dc.msgs <- ln.Data
		}
		if err != nil {
			return
		}
	}
}

// stop makes the daemon go away: its listener closes (its links stay
// until the test closes them).
func (f *fakeDaemon) stop() { f.ln.Close() }

func (f *fakeDaemon) ensure(context.Context) (launcher.Daemon, error) {
	return launcher.Daemon{Port: f.ln.Addr().(*net.TCPAddr).Port, PID: 1, Dir: f.dir}, nil
}

func (f *fakeDaemon) accept(t *testing.T) *daemonConn {
	t.Helper()
	select {
	case dc := <-f.conns:
		t.Cleanup(func() { dc.c.Close() })
		return dc
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not connect")
		return nil
	}
}

func (d *daemonConn) recv() map[string]any {
	d.t.Helper()
	var data []byte
	select {
	case msg, ok := <-d.msgs:
		if !ok {
			d.t.Fatal("daemon connection closed")
		}
		data = msg
	case <-time.After(10 * time.Second):
		d.t.Fatal("daemon got nothing")
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		d.t.Fatalf("daemon got %s: %v", data, err)
	}
	return m
}

func (d *daemonConn) send(msg string) {
	d.t.Helper()
	if _, err := d.c.Write([]byte(msg + "\n")); err != nil {
		d.t.Fatal(err)
	}
}

// relayUnderTest runs Run with pipes for stdin and stdout.
type relayUnderTest struct {
	t     *testing.T
	in    *io.PipeWriter
	out   *bufio.Scanner
	errc  chan error
	lines chan []byte
}

func startRelay(t *testing.T, cfg Config) *relayUnderTest {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cfg.In, cfg.Out = inR, outW
	r := &relayUnderTest{t: t, in: inW, errc: make(chan error, 1), lines: make(chan []byte, 64)}
	go func() {
		err := Run(context.Background(), cfg)
		outW.Close()
		r.errc <- err
	}()
	go func() { // every stdout line must be one JSON-RPC message
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, MaxMessage)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Errorf("stdout line is not a JSON-RPC message: %q", sc.Text())
			}
			r.lines <- bytes.Clone(sc.Bytes())
		}
		close(r.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return r
}

func (r *relayUnderTest) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

func (r *relayUnderTest) recv() map[string]any {
	r.t.Helper()
	var m map[string]any
	json.Unmarshal(r.recvRaw(), &m)
	return m
}

// recvRaw returns the next stdout line as written.
func (r *relayUnderTest) recvRaw() []byte {
	r.t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			r.t.Fatal("stdout closed")
		}
		return line
	case <-time.After(10 * time.Second):
		r.t.Fatal("nothing on stdout")
		return nil
	}
}

// exit closes stdin and returns Run's result.
func (r *relayUnderTest) exit() error {
	r.t.Helper()
	r.in.Close()
	select {
	case err := <-r.errc:
		return err
	case <-time.After(10 * time.Second):
		r.t.Fatal("relay did not exit after EOF")
		return nil
	}
}

const clientInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

func TestRelayForwardsAndDrainsOnEOF(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	r.send(clientInit)
	got := d.recv()
	if got["method"] != "initialize" {
		t.Fatalf("daemon got %v", got)
	}
	d.send(`{"jsonrpc":"2.0","id":` + idOf(got) + `,"result":{"protocolVersion":"2025-06-18"}}`)
	if got := r.recv(); got["id"] != 1.0 || got["result"] == nil {
		t.Fatalf("client got %v", got)
	}
	r.send("   ") // blank lines are skipped
	r.send(`{"jsonrpc":"2.0","id":"two","method":"tools/list"}`)
	list := d.recv()
	// stdin ends with "two" in flight: the relay waits for its answer.
	r.in.Close()
	d.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	d.send(`{"jsonrpc":"2.0","id":` + idOf(list) + `,"result":{"tools":[]}}`)
	if got := r.recv(); got["method"] != "notifications/message" {
		t.Fatalf("client got %v", got)
	}
	if got := r.recv(); got["id"] != "two" {
		t.Fatalf("client got %v", got)
	}
	if err := r.exit(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	for range d.msgs { // until the relay closed the link
	}
	if !d.ended {
		t.Fatal("the relay closed the link at the end of stdin without ending the session (mcpline.End)")
	}
}

// TestRelayAnswersLinesThatAreNotJSON: a client line that does not begin
// with '{' or '[' never reaches the link, where it could pass for a control
// line (mcpline.End): the relay answers it with a parse error, and the
// session goes on.
func TestRelayAnswersLinesThatAreNotJSON(t *testing.T) {
	fd := newFakeDaemon(t)
	var sent sendLog
	r := startRelay(t, Config{Ensure: fd.ensure, sent: sent.add})
	d := fd.accept(t)
	r.send(clientInit)
	init := d.recv()
	d.send(`{"jsonrpc":"2.0","id":` + idOf(init) + `,"result":{"protocolVersion":"2025-06-18"}}`)
	r.recv()
	for _, bad := range []string{mcpline.End, "  end", "hello"} {
		r.send(bad)
		if got := r.recv(); dig(got, "error", "code") != -32700.0 || got["id"] != nil {
			t.Fatalf("answer to %q: %v, want a parse error with id null", bad, got)
		}
	}
	d.settled(r)
	if got := sent.all(); len(got) != 1 {
		t.Fatalf("the relay put %q on the link, want only the initialize", got)
	}
	r.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if got := d.recv(); got["method"] != "ping" {
		t.Fatalf("daemon got %v, want the ping (the session goes on)", got)
	}
	r.exit()
}

// TestRelayDaemonRestart: the daemon drops mid-request. The request gets a
// JSON-RPC error, the relay reconnects asking for its session, replays the
// handshake (swallowing the answer) and warns the client.
func TestRelayDaemonRestart(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	r.send(clientInit)
	d.send(`{"jsonrpc":"2.0","id":` + idOf(d.recv()) + `,"result":{}}`)
	r.recv()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	d.recv()
	r.send(`{"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{"name":"observe","arguments":{"what":"page"}}}`)
	d.recv()

	d.c.Close() // the daemon dies with call-7 in flight
	lost := r.recv()
	if lost["id"] != "call-7" || dig(lost, "error", "code") != float64(codeDaemonLost) || dig(lost, "error", "data", "code") != "daemon_restarted" {
		t.Fatalf("in-flight answer: %v", lost)
	}

	d2 := fd.accept(t)
	if d2.hint != "s1" || d2.key != "k1" {
		t.Errorf("reconnect asked for session %q with key %q, want s1 with the key it was handed (k1)", d2.hint, d2.key)
	}
	replayed := d2.recv()
	if replayed["method"] != "initialize" || dig(replayed, "params", "clientInfo", "name") != "c" {
		t.Fatalf("replayed %v", replayed)
	}
	if got := d2.recv(); got["method"] != "notifications/initialized" {
		t.Fatalf("replayed %v", got)
	}
	d2.send(`{"jsonrpc":"2.0","id":` + idOf(replayed) + `,"result":{}}`) // swallowed
	note := r.recv()
	if note["method"] != "notifications/message" || dig(note, "params", "level") != "warning" ||
		!strings.Contains(dig(note, "params", "data").(string), "re-initialized") {
		t.Fatalf("notice %v", note)
	}
	r.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	ping := d2.recv()
	if ping["method"] != "ping" {
		t.Fatalf("after reconnect daemon got %v", ping)
	}
	d2.send(`{"jsonrpc":"2.0","id":` + idOf(ping) + `,"result":{}}`)
	if got := r.recv(); got["id"] != 8.0 {
		t.Fatalf("after reconnect client got %v (the replayed answer leaked?)", got)
	}
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
}

func TestRelayResumedSessionNotice(t *testing.T) {
	fd := newFakeDaemon(t)
	r := startRelay(t, Config{Ensure: fd.ensure})
	d := fd.accept(t)
	r.send(clientInit)
	d.recv()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	d.recv()
	fd.resumed.Store(true)
	d.c.Close()
	r.recv() // the error for the initialize that was never answered
	d2 := fd.accept(t)
	d2.recv()
	d2.recv()
	if note := r.recv(); dig(note, "params", "level") != "info" || !strings.Contains(dig(note, "params", "data").(string), "resumed") {
		t.Fatalf("notice %v", note)
	}
	r.exit()
}

func TestRelayDaemonUnavailable(t *testing.T) {
	calls := 0
	ensure := func(context.Context) (launcher.Daemon, error) {
		calls++
		return launcher.Daemon{}, errors.New("port 1 answers, but not as Gasoline")
	}
	r := startRelay(t, Config{Ensure: ensure})
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`) // dropped: nobody to tell
	r.send(clientInit)
	got := r.recv()
	if got["id"] != 1.0 || dig(got, "error", "code") != float64(codeDaemonUnavailable) ||
		!strings.Contains(dig(got, "error", "message").(string), "not as Gasoline") {
		t.Fatalf("answer %v", got)
	}
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("Ensure called %d times, want 3 (start, then once per message)", calls)
	}
}

// TestRelayDaemonStopped: after a deliberate stop the relay starts no
// daemon and says so: the user has to start Gasoline.
func TestRelayDaemonStopped(t *testing.T) {
	ensure := func(context.Context) (launcher.Daemon, error) {
		return launcher.Daemon{}, &launcher.StoppedError{Stop: state.Stop{By: "SIGTERM"}}
	}
	r := startRelay(t, Config{Ensure: ensure})
	r.send(clientInit)
	got := r.recv()
	if dig(got, "error", "data", "code") != "daemon_stopped" || dig(got, "error", "data", "retryable") != false ||
		!strings.Contains(dig(got, "error", "message").(string), "ask the user to start it") {
		t.Fatalf("answer %v", got)
	}
	r.exit()
}

func TestReadLines(t *testing.T) {
	in := "a\r\n\n" + strings.Repeat("x", 100) + "\nbb\nlast"
	stop := make(chan struct{})
	defer close(stop)
	var got []string
	for l := range readLines(strings.NewReader(in), 10, stop) {
		if l.tooLong {
			got = append(got, "<too long>")
		} else {
			got = append(got, string(l.data))
		}
	}
	if want := "a|<too long>|bb|last"; strings.Join(got, "|") != want {
		t.Errorf("lines %q, want %q", strings.Join(got, "|"), want)
	}
}

// idOf is the id a message carries, as JSON.
func idOf(m map[string]any) string {
	raw, _ := json.Marshal(m["id"])
	return string(raw)
}

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
