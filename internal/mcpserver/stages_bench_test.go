package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// BenchmarkListReadStages times the daemon's stages of a list read (observe
// logs and network_waterfall on the bench's errors page: three console
// entries, seven requests) in process, one stage per sub-benchmark (the
// handler declares its page text as internal/observe does): the
// handler's answer as a session command (route) or inline, the redaction
// gateway (the real engine, default policy), the fence and instruction
// scan (fence.go, internal/untrusted), and the whole dispatch. What the
// SDK and the transports add is not here (bench/: end to end).
func BenchmarkListReadStages(b *testing.B) {
	for _, read := range []struct {
		what string
		v    any
		page *untrusted.Page // what the handler declares, as internal/observe does
	}{
		{"logs", logsAnswer(), logsPage()},
		{"network_waterfall", networkAnswer(), new(untrusted.Page).AddValue(networkAnswer().(map[string]any)["requests"])},
	} {
		s, sess := benchServer(b, read.v)
		handler := func(context.Context, *Call) (any, error) { return PageResult(listText(read.v), read.v, read.page) }
		s.Handle("observe", read.what, handler)
		raw := json.RawMessage(`{"what":"` + read.what + `"}`)
		res, _, _ := s.route(context.Background(), sess, "observe", raw)
		red, _ := s.redactResult(sess.ID(), res)
		b.Run(read.what+"/route", func(b *testing.B) {
			for b.Loop() {
				s.route(context.Background(), sess, "observe", raw)
			}
		})
		b.Run(read.what+"/route-quick", func(b *testing.B) {
			s.HandleQuick("observe", read.what, handler)
			defer s.Handle("observe", read.what, handler)
			for b.Loop() {
				s.route(context.Background(), sess, "observe", raw)
			}
		})
		b.Run(read.what+"/redact", func(b *testing.B) {
			for b.Loop() {
				s.redactResult(sess.ID(), res)
			}
		})
		b.Run(read.what+"/fence", func(b *testing.B) {
			for b.Loop() {
				s.fence(sess, red)
			}
		})
		b.Run(read.what+"/dispatch", func(b *testing.B) {
			for b.Loop() {
				s.dispatch(context.Background(), sess, "observe", raw)
			}
		})
	}
}

// benchServer is a Server with the real redaction engine, and a session.
func benchServer(b *testing.B, _ any) (*Server, *session.Session) {
	b.Helper()
	e, err := redact.New(redact.DefaultPolicy())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, &Options{Version: "bench", Dir: b.TempDir(), Redact: engineRedactor{e}, Gate: refuseGate})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); s.Wait() })
	sess, _, _, err := s.sessions.Attach("bench", session.Stdio)
	if err != nil {
		b.Fatal(err)
	}
	return s, sess
}

// engineRedactor is the gateway's server stage without its counters.
type engineRedactor struct{ e *redact.Engine }

func (r engineRedactor) Text(_, s string) (string, error) {
	out, _, err := r.e.Text(s)
	return out, err
}

func (r engineRedactor) JSON(_ string, raw []byte) ([]byte, error) {
	out, _, err := r.e.JSON(raw)
	return out, err
}

type benchEntry struct {
	Seq    uint64    `json:"seq"`
	Time   time.Time `json:"time"`
	Level  string    `json:"level"`
	Text   string    `json:"text"`
	URL    string    `json:"url,omitempty"`
	Line   int       `json:"line,omitempty"`
	Column int       `json:"column,omitempty"`
}

type benchRequest struct {
	Seq      uint64  `json:"seq"`
	Method   string  `json:"method"`
	URL      string  `json:"url"`
	Type     string  `json:"type"`
	Status   int     `json:"status"`
	MIME     string  `json:"mime_type"`
	Bytes    int     `json:"encoded_bytes"`
	StartMS  float64 `json:"start_ms"`
	Duration float64 `json:"duration_ms"`
}

// logsAnswer is observe logs' answer on bench/pages/errors.html.
func logsAnswer() any {
	at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	page := "http://127.0.0.1:40123/bench/errors.html"
	return map[string]any{"tab_id": 1, "next_cursor": "3", "entries": []benchEntry{
		{1, at, "error", "bench-planted-error: the widget failed to load", page, 11, 15},
		{2, at, "error", "Uncaught Error: bench-uncaught-exception", page, 13, 15},
		{3, at, "error", "bench-fetch-failed: HTTP 404", page, 17, 19},
	}}
}

// logsPage is the page text observe logs declares for logsAnswer: each
// message and its script's URL.
func logsPage() *untrusted.Page {
	p := new(untrusted.Page)
	for _, e := range logsAnswer().(map[string]any)["entries"].([]benchEntry) {
		p.Add(e.Text, e.URL)
	}
	return p
}

// networkAnswer is observe network_waterfall's answer on the same page.
func networkAnswer() any {
	var reqs []benchRequest
	for i, p := range []string{"errors.html", "style.css", "app.js", "logo.png", "font.woff2", "data.json", "missing-endpoint.json"} {
		status := 200
		if i == 6 {
			status = 404
		}
		reqs = append(reqs, benchRequest{uint64(i + 1), "GET", "http://127.0.0.1:40123/bench/" + p, "Fetch", status, "text/plain", 1200, float64(i) * 3.5, 2.25})
	}
	return map[string]any{"tab_id": 1, "page_url": "http://127.0.0.1:40123/bench/errors.html", "requests": reqs, "next_cursor": "7"}
}

// listText is a list answer's text, one line per entry, as observe writes it.
func listText(v any) string {
	raw, _ := json.Marshal(v)
	var m map[string][]map[string]any
	json.Unmarshal(raw, &m)
	var b strings.Builder
	for _, list := range m {
		for _, e := range list {
			fmt.Fprintf(&b, "%v %v %v %v\n", e["level"], e["text"], e["url"], e["status"])
		}
	}
	return b.String()
}
