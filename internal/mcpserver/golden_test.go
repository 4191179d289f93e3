package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/version"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/mcp from the stdio run")

const goldenDir = "../../testdata/mcp"

// sameOnBoth lists transcripts that may not differ between transports at
// all: one golden tools/list proves identical schemas.
var sameOnBoth = []string{"initialize.txtar", "tools_list.txtar"}

// conn is one MCP client connection under a golden transcript.
type conn interface {
	// exchange sends one message and returns what it produced.
	exchange(msg string) [][]byte
	close()
}

type stdioConn struct {
	s    *stdio
	sync int
}

// exchange waits for the answer of a request; for anything else it sends a
// ping and collects what arrives before the ping's answer (the daemon
// answers malformed input and drops unknown notifications in order).
func (c *stdioConn) exchange(msg string) [][]byte {
	var h struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	isCall := json.Unmarshal([]byte(msg), &h) == nil && h.Method != "" && len(h.ID) > 0
	c.s.send(msg)
	wait := string(h.ID)
	if !isCall {
		c.sync++
		wait = strconv.Quote("golden-sync-" + strconv.Itoa(c.sync))
		c.s.send(`{"jsonrpc":"2.0","id":` + wait + `,"method":"ping"}`)
	}
	var got [][]byte
	for {
		line := c.s.recv()
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(line, &r)
		if string(r.ID) == wait {
			if isCall {
				got = append(got, line)
			}
			return got
		}
		got = append(got, line)
	}
}

func (c *stdioConn) close() { c.s.close() }

type httpConn struct{ h *httpMCP }

func (c *httpConn) exchange(msg string) [][]byte {
	_, msgs := c.h.post(msg)
	return msgs
}

func (c *httpConn) close() { c.h.end() }

func dial(t *testing.T, transport string) conn {
	d := startDaemon(t)
	if transport == "stdio" {
		return &stdioConn{s: startStdio(t, d)}
	}
	return &httpConn{h: newHTTP(t, d)}
}

const (
	goldenInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"golden","version":"1.0"}}}`
	goldenInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestGolden replays every transcript over stdio (relay process → daemon
// process) and over HTTP (daemon process), each on a fresh daemon, and
// compares the normalized answers with the golden ones.
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if len(files) < 4 {
		t.Fatalf("golden transcripts missing in %s", goldenDir)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a := parseTxtar(raw)
			stdio := replay(t, a, "stdio")
			http := replay(t, a, "http")
			if *update {
				a = rewrite(a, stdio, http)
				if err := os.WriteFile(path, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			check(t, a, "stdio", stdio)
			check(t, a, "http", http)
			if slices.Contains(sameOnBoth, filepath.Base(path)) && slices.ContainsFunc(a.files, func(f txtarFile) bool { return strings.Contains(f.name, "recv.") }) {
				t.Errorf("%s has per-transport answers; it must be identical on stdio and HTTP", path)
			}
		})
	}
}

// replay runs the transcript's sends on a new connection and returns the
// rendered answers, one per send.
func replay(t *testing.T, a txtarArchive, transport string) []string {
	c := dial(t, transport)
	defer c.close()
	if !strings.Contains(a.comment, "setup: none") {
		c.exchange(goldenInit)
		c.exchange(goldenInitialized)
	}
	var out []string
	for _, send := range a.sends() {
		out = append(out, render(t, c.exchange(strings.TrimSpace(string(send.data)))))
	}
	return out
}

func check(t *testing.T, a txtarArchive, transport string, got []string) {
	for i, send := range a.sends() {
		n := strings.TrimSuffix(send.name, ".send")
		want, ok := a.file(n + ".recv." + transport)
		if !ok {
			want, _ = a.file(n + ".recv")
		}
		if i < len(got) && got[i] != string(want) {
			t.Errorf("%s exchange %s (%s):\n got: %s\nwant: %s", transport, n, send.data, got[i], want)
		}
	}
}

// rewrite puts the stdio answers in N.recv and, where HTTP differs, the
// HTTP one in N.recv.http.
func rewrite(a txtarArchive, stdio, http []string) txtarArchive {
	out := txtarArchive{comment: a.comment}
	for i, send := range a.sends() {
		n := strings.TrimSuffix(send.name, ".send")
		out.files = append(out.files, send, txtarFile{name: n + ".recv", data: []byte(stdio[i])})
		if http[i] != stdio[i] {
			out.files = append(out.files, txtarFile{name: n + ".recv.http", data: []byte(http[i])})
		}
	}
	return out
}

// render normalizes and pretty-prints the messages of one exchange.
func render(t *testing.T, msgs [][]byte) string {
	var b strings.Builder
	for _, m := range msgs {
		var v any
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatalf("not JSON: %s", m)
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(normalize(v))
	}
	return b.String()
}

// normalize replaces volatile values (pids, versions, ids, times,
// durations), also inside text content that is itself JSON.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeField(k, e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

func normalizeField(k string, v any) any {
	switch k {
	case "pid", "uptime_ms", "elapsed_ms":
		return 0
	case "memory": // heap and store sizes move with everything
		if _, ok := v.(map[string]any); ok {
			return "<memory>"
		}
	case "version":
		if v == version.Version {
			return "<version>"
		}
	case "session_id", "correlation_id", "created_at", "last_seen", "started_at":
		if s, ok := v.(string); ok && s != "" {
			return "<" + k + ">"
		}
	case "text":
		if s, ok := v.(string); ok && strings.HasPrefix(s, "{") {
			var inner any
			if json.Unmarshal([]byte(s), &inner) == nil {
				var b bytes.Buffer
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				enc.Encode(normalize(inner))
				return strings.TrimSpace(b.String())
			}
		}
	}
	return normalize(v)
}

// A minimal txtar (golang.org/x/tools/txtar format): a comment, then files
// introduced by "-- name --" lines.
type txtarArchive struct {
	comment string
	files   []txtarFile
}

type txtarFile struct {
	name string
	data []byte
}

func parseTxtar(data []byte) txtarArchive {
	var a txtarArchive
	var cur *txtarFile
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "-- "); ok && strings.HasSuffix(name, " --") {
			a.files = append(a.files, txtarFile{name: strings.TrimSuffix(name, " --")})
			cur = &a.files[len(a.files)-1]
			continue
		}
		if cur == nil {
			a.comment += line
		} else {
			cur.data = append(cur.data, line...)
		}
	}
	return a
}

func (a txtarArchive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.Write(f.data)
		if len(f.data) > 0 && f.data[len(f.data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func (a txtarArchive) sends() []txtarFile {
	var out []txtarFile
	for _, f := range a.files {
		if strings.HasSuffix(f.name, ".send") {
			out = append(out, f)
		}
	}
	return out
}

func (a txtarArchive) file(name string) ([]byte, bool) {
	for _, f := range a.files {
		if f.name == name {
			return f.data, true
		}
	}
	return nil, false
}
