package mcprelay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/launcher"
)

const (
	testVersion = "v-cache-test"
	pvNew       = "2025-06-18"
	cachedRes   = `{"capabilities":{"tools":{"listChanged":true}},"instructions":"cached: <<<PAGE_TEXT id>>> & co","protocolVersion":"2025-06-18","serverInfo":{"name":"gasoline","version":"v-cache-test"}}`
	daemonRes   = `{"capabilities":{"tools":{"listChanged":true}},"instructions":"from the daemon: <<<PAGE_TEXT id>>> & co","protocolVersion":"2025-06-18","serverInfo":{"name":"gasoline","version":"v-cache-test"}}`
)

// cacheAt writes a cache file holding results of version into a fresh
// state folder and returns its path.
func cacheAt(t *testing.T, version string, results map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp-initialize.json")
	f := initCacheFile{Version: version, Results: map[string]json.RawMessage{}}
	for pv, r := range results {
		f.Results[pv] = json.RawMessage(r)
	}
	raw, _ := encode(f) // as the relay writes it
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// cached reads the cache file back: its version and results.
func cached(t *testing.T, path string) initCacheFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the cache file: %v", err)
	}
	var f initCacheFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("the cache file does not parse: %v\n%s", err, raw)
	}
	return f
}

// gatedEnsure hands out fd only once the test opens the gate, so a test
// can see what the relay does before the daemon is reached.
func gatedEnsure(fd *fakeDaemon) (ensure func(context.Context) (launcher.Daemon, error), open func()) {
	gate := make(chan struct{})
	var once sync.Once
	return func(ctx context.Context) (launcher.Daemon, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return launcher.Daemon{}, ctx.Err()
		}
		return fd.ensure(ctx)
	}, func() { once.Do(func() { close(gate) }) }
}

// logBuffer is a concurrency-safe stderr for the relay's logger.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func cacheConfig(path string, ensure func(context.Context) (launcher.Daemon, error), stderr *logBuffer) Config {
	return Config{Ensure: ensure, InitCache: path, Version: testVersion,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

// sendLog records what the relay writes to its links, in order
// (Config.sent).
type sendLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *sendLog) add(msg []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, string(msg))
}

func (l *sendLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs)
}

// settled returns once the relay's loop has handled what it received
// before the call: the daemon sends a notification, which the loop writes
// to stdout on the one goroutine that also writes to the links.
func (d *daemonConn) settled(r *relayUnderTest) {
	d.t.Helper()
	d.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"settled"}}`)
	if m := r.recv(); dig(m, "params", "data") != "settled" {
		d.t.Fatalf("client got %v before the daemon's notification", m)
	}
}

// TestInitFromCacheHit: a cache of this version for the protocolVersion
// asked answers the client's initialize before the daemon is even reached
// (Ensure is held); then the relay forwards the initialize under an id of
// its own, holds the client's next messages until the daemon answered it,
// swallows that answer, and everything after flows as before.
func TestInitFromCacheHit(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = testVersion
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
	ensure, open := gatedEnsure(fd)
	var stderr logBuffer
	var sent sendLog
	cfg := cacheConfig(path, ensure, &stderr)
	cfg.sent = sent.add
	r := startRelay(t, cfg)
	t.Cleanup(open)

	r.send(strings.Replace(clientInit, `"id":1`, `"id":"init-A"`, 1))
	got := r.recvRaw()
	if want := `{"jsonrpc":"2.0","id":"init-A","result":` + cachedRes + `}`; string(got) != want {
		t.Fatalf("client got %s\nwant %s (from the cache, before the daemon was reached)", got, want)
	}
	open()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`) // the first request: the relay dials
	r.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	r.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`) // once written, the relay has handled the lines before it
	d := fd.accept(t)
	fwd := d.recv()
	if fwd["method"] != "initialize" || idOf(fwd) == `"init-A"` || dig(fwd, "params", "clientInfo", "name") != "c" {
		t.Fatalf("daemon got %v; want the client's initialize under an id of the relay's", fwd)
	}
	d.settled(r)
	if got := sent.all(); len(got) != 1 {
		t.Fatalf("the relay sent %d messages before the daemon answered initialize, want only it: %q", len(got), got)
	}
	d.send(`{"jsonrpc":"2.0","id":` + idOf(fwd) + `,"result":` + cachedRes + `}`)
	for _, want := range []string{"notifications/initialized", "tools/list", "ping", "ping"} {
		if m := d.recv(); m["method"] != want {
			t.Fatalf("daemon got %v, want %s (in the client's order)", m, want)
		}
	}
	d.send(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
	if got := r.recv(); got["id"] != 2.0 || dig(got, "result", "tools") == nil {
		t.Fatalf("client got %v; want the tools/list answer (the daemon's initialize answer is swallowed)", got)
	}
	r.exit()
	if f := cached(t, path); string(f.Results[pvNew]) != cachedRes {
		t.Errorf("the cache changed though the daemon answered the same: %s", f.Results[pvNew])
	}
	if s := stderr.String(); s != "" {
		t.Errorf("stderr: %s", s)
	}
}

// missCase is a cache that must not answer: the relay forwards the
// client's initialize as it always did, passes the daemon's answer
// through, and then the cache holds it.
func missCase(t *testing.T, path string) initCacheFile {
	t.Helper()
	fd := newFakeDaemon(t)
	fd.version = testVersion
	var stderr logBuffer
	r := startRelay(t, cacheConfig(path, fd.ensure, &stderr))
	r.send(clientInit) // a cache of this version: the relay dials once it has the first line
	d := fd.accept(t)
	fwd := d.recv()
	if fwd["method"] != "initialize" {
		t.Fatalf("daemon got %v", fwd)
	}
	d.send(`{"jsonrpc":"2.0","id":` + idOf(fwd) + `,"result":` + daemonRes + `}`)
	if got := r.recvRaw(); string(got) != `{"jsonrpc":"2.0","id":1,"result":`+daemonRes+`}` {
		t.Fatalf("client got %s; want the daemon's answer", got)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	ping := d.recv()
	d.send(`{"jsonrpc":"2.0","id":` + idOf(ping) + `,"result":{}}`)
	r.recv()
	r.exit()
	f := cached(t, path)
	if f.Version != testVersion || string(f.Results[pvNew]) != daemonRes {
		t.Fatalf("cache after a miss: %+v; want the daemon's answer for %s under %s", f, pvNew, testVersion)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("cache mode %v, want 0600", fi.Mode().Perm())
	}
	return f
}

func TestInitCacheMissFillsIt(t *testing.T) {
	t.Run("no file", func(t *testing.T) {
		missCase(t, filepath.Join(t.TempDir(), "state", "mcp-initialize.json"))
	})
	t.Run("another version", func(t *testing.T) {
		f := missCase(t, cacheAt(t, "v-older", map[string]string{pvNew: cachedRes, "2025-03-26": cachedRes}))
		if len(f.Results) != 1 {
			t.Errorf("an older version's results were kept: %s", f.Results)
		}
	})
	t.Run("another protocolVersion", func(t *testing.T) {
		f := missCase(t, cacheAt(t, testVersion, map[string]string{"2025-03-26": cachedRes}))
		if string(f.Results["2025-03-26"]) != cachedRes {
			t.Errorf("the other protocolVersion's result was lost: %s", f.Results)
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mcp-initialize.json")
		if err := os.WriteFile(path, []byte(`{"version":"v-cache-test","results":{"2025-06-18":`), 0o600); err != nil {
			t.Fatal(err)
		}
		missCase(t, path)
	})
	t.Run("not an object", func(t *testing.T) {
		missCase(t, cacheAt(t, testVersion, map[string]string{pvNew: `"a string"`}))
	})
	t.Run("open to others", func(t *testing.T) {
		path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		missCase(t, path)
	})
	t.Run("symlink", func(t *testing.T) {
		real := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
		path := filepath.Join(t.TempDir(), "mcp-initialize.json")
		if err := os.Symlink(real, path); err != nil {
			t.Fatal(err)
		}
		missCase(t, path)
		if f := cached(t, real); string(f.Results[pvNew]) != cachedRes {
			t.Errorf("the relay wrote through the symlink: %s", f.Results[pvNew])
		}
	})
}

// TestInitCacheDaemonDiffers: the client was answered from the cache and
// the daemon's answer differs: the client is not told twice (stdout has
// only protocol lines), stderr says so, and the cache now holds the
// daemon's answer for the next start.
func TestInitCacheDaemonDiffers(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = testVersion
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes, "2025-03-26": cachedRes})
	var stderr logBuffer
	r := startRelay(t, cacheConfig(path, fd.ensure, &stderr))
	r.send(clientInit)
	if got := r.recv(); dig(got, "result", "instructions") != "cached: <<<PAGE_TEXT id>>> & co" {
		t.Fatalf("client got %v", got)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	d := fd.accept(t)
	fwd := d.recv()
	d.send(`{"jsonrpc":"2.0","id":` + idOf(fwd) + `,"result":` + daemonRes + `}`)
	ping := d.recv()
	d.send(`{"jsonrpc":"2.0","id":` + idOf(ping) + `,"result":{}}`)
	if got := r.recv(); got["id"] != 2.0 {
		t.Fatalf("client got %v; want the ping's answer", got)
	}
	r.exit()
	f := cached(t, path)
	if string(f.Results[pvNew]) != daemonRes || string(f.Results["2025-03-26"]) != cachedRes {
		t.Errorf("cache %s; want the daemon's answer for %s, the other kept", f.Results, pvNew)
	}
	if !strings.Contains(stderr.String(), "differs from the cached one") {
		t.Errorf("stderr does not say the cached answer differed: %q", stderr.String())
	}
}

// TestInitCacheDaemonUnreachable: answered from the cache, then the daemon
// cannot be reached: the client's next request gets the error it gets
// without a cache (nothing hangs), and a later request, once the daemon is
// back, finds the session initialized (initialize and initialized are
// replayed first).
func TestInitCacheDaemonUnreachable(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = testVersion
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
	var mu sync.Mutex
	down := true
	ensure := func(ctx context.Context) (launcher.Daemon, error) {
		mu.Lock()
		defer mu.Unlock()
		if down {
			return launcher.Daemon{}, errors.New("no daemon answered on 127.0.0.1:1")
		}
		return fd.ensure(ctx)
	}
	var stderr logBuffer
	var sent sendLog
	cfg := cacheConfig(path, ensure, &stderr)
	cfg.sent = sent.add
	r := startRelay(t, cfg)
	r.send(clientInit)
	if got := r.recv(); got["id"] != 1.0 || got["result"] == nil {
		t.Fatalf("client got %v; want the cached answer", got)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	got := r.recv()
	if got["id"] != 2.0 || dig(got, "error", "code") != float64(codeDaemonUnavailable) || dig(got, "error", "data", "code") != "daemon_unavailable" ||
		!strings.Contains(dig(got, "error", "message").(string), "no daemon answered") {
		t.Fatalf("client got %v; want the daemon_unavailable error", got)
	}
	mu.Lock()
	down = false
	mu.Unlock()
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	d := fd.accept(t)
	for _, want := range []string{"initialize", "notifications/initialized"} {
		if m := d.recv(); m["method"] != want {
			t.Fatalf("daemon got %v, want the replayed %s", m, want)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`) // once written, the relay has handled id 3
	d.settled(r)
	if got := sent.all(); len(got) != 2 {
		t.Fatalf("the relay sent %q before the daemon answered the replayed initialize, want only it and notifications/initialized", got)
	}
	d.send(`{"jsonrpc":"2.0","id":1,"result":` + cachedRes + `}`) // the replayed initialize is the relay's first own id
	if m := d.recv(); m["method"] != "tools/list" {
		t.Fatalf("daemon got %v, want tools/list", m)
	}
	d.send(`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
	if got := r.recv(); got["id"] != 3.0 || got["result"] == nil {
		t.Fatalf("client got %v; want the tools/list answer (no notice: nothing was lost)", got)
	}
	r.exit()
}

// countingWriter counts the lines written through it.
type countingWriter struct {
	mu sync.Mutex
	w  io.Writer
	n  int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.w.Write(p)
}

// TestInitHitBeforeAfterFirst: with Config.AfterFirst (gasoline-mcp), a
// cache hit is on stdout before the hook runs (where the signal handler
// and the relay's goroutines start), and the hook runs once.
func TestInitHitBeforeAfterFirst(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = testVersion
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
	var stderr logBuffer
	cfg := cacheConfig(path, fd.ensure, &stderr)
	var out *countingWriter
	written := make(chan int, 2)
	cfg.AfterFirst = func() { out.mu.Lock(); written <- out.n; out.mu.Unlock() }
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out = &countingWriter{w: outW}
	cfg.In, cfg.Out = inR, out
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), cfg); outW.Close() }()
	go func() { io.WriteString(inW, clientInit+"\n") }()
	sc := bufio.NewScanner(outR)
	if !sc.Scan() || !strings.Contains(sc.Text(), `"instructions":"cached`) {
		t.Fatalf("stdout %q; want the cached answer", sc.Text())
	}
	if n := <-written; n != 1 {
		t.Fatalf("AfterFirst ran with %d lines on stdout; want the cached answer first", n)
	}
	go func() { io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n") }()
	d := fd.accept(t)
	fwd := d.recv()
	d.send(`{"jsonrpc":"2.0","id":` + idOf(fwd) + `,"result":` + cachedRes + `}`)
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(written) != 0 {
		t.Error("AfterFirst ran twice")
	}
}

// TestInitHitProbeNeverDials: a client answered from the cache that only
// initializes and leaves (a health probe, `claude mcp list`) asks nothing
// of the daemon, and the relay never reaches it: no Ensure, no session.
func TestInitHitProbeNeverDials(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = testVersion
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
	var ensured atomic.Int32
	var stderr logBuffer
	r := startRelay(t, cacheConfig(path, countingEnsure(fd, &ensured), &stderr))
	r.send(clientInit)
	if got := r.recv(); got["result"] == nil {
		t.Fatalf("client got %v", got)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
	if n := ensured.Load(); n != 0 || len(fd.conns) != 0 {
		t.Fatalf("Ensure ran %d times, %d connections: a client that asked nothing of the daemon reached it", n, len(fd.conns))
	}
}

// TestInitCacheSilentDaemonAtEOF: answered from the cache, a request held
// for the daemon's initialize answer, then stdin ends and the daemon never
// answers: the relay still exits (DrainTimeout bounds the wait) and the
// request gets the relay_exiting error, never silence.
func TestInitCacheSilentDaemonAtEOF(t *testing.T) {
	fd := newFakeDaemon(t)
	fd.version = testVersion
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
	var stderr logBuffer
	cfg := cacheConfig(path, fd.ensure, &stderr)
	cfg.DrainTimeout = 20 * time.Millisecond
	r := startRelay(t, cfg)
	r.send(clientInit)
	r.recv()
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	d := fd.accept(t)
	if m := d.recv(); m["method"] != "initialize" {
		t.Fatalf("daemon got %v", m)
	}
	r.in.Close() // the daemon never answers
	got := r.recv()
	if got["id"] != 2.0 || dig(got, "error", "data", "code") != "relay_exiting" {
		t.Fatalf("client got %v; want the relay_exiting error for the held request", got)
	}
	if err := r.exit(); err != nil {
		t.Fatal(err)
	}
}

// TestInitCacheNeedsARunningDaemon: a cache of this version holds an
// answer, but no daemon runs (Config.Running): the client must not hear
// it is connected from the cache. Its initialize goes to the daemon the
// relay starts (Ensure), and the client gets that daemon's answer.
func TestInitCacheNeedsARunningDaemon(t *testing.T) {
	path := cacheAt(t, testVersion, map[string]string{pvNew: cachedRes})
	fd := newFakeDaemon(t)
	fd.version = testVersion
	var stderr logBuffer
	cfg := cacheConfig(path, fd.ensure, &stderr)
	var asked atomic.Int32
	cfg.Running = func() bool { asked.Add(1); return false }
	r := startRelay(t, cfg)
	r.send(clientInit)
	d := fd.accept(t)
	fwd := d.recv()
	if fwd["method"] != "initialize" || idOf(fwd) != "1" {
		t.Fatalf("daemon got %v; want the client's initialize, under the client's id", fwd)
	}
	d.send(`{"jsonrpc":"2.0","id":1,"result":` + daemonRes + `}`)
	if got := r.recvRaw(); string(got) != `{"jsonrpc":"2.0","id":1,"result":`+daemonRes+`}` {
		t.Fatalf("client got %s; want the running daemon's answer, not the cache's", got)
	}
	r.exit()
	if n := asked.Load(); n != 1 {
		t.Errorf("Running asked %d times, want once (at the cache hit)", n)
	}
}
