package mcpserver_test

import (
	"slices"
	"testing"
	"time"
)

// Benchmarks of the MCP surface on real processes. Each reports p50/p95
// latency (ms); tools/list also its answer's size. Targets (issue 3):
// initialize p95 ≤ 30 ms, tools/list p95 ≤ 2 ms and ≤ 12 KiB.

const benchInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

// BenchmarkSpawnInitialize: spawn `gasoline-host --mcp` against a warm
// daemon until the initialize answer is on its stdout.
func BenchmarkSpawnInitialize(b *testing.B) {
	d := startDaemon(b)
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		s := startStdio(b, d)
		s.send(benchInit)
		s.recv()
		lat = append(lat, time.Since(start))
		s.close()
	}
	report(b, lat)
}

// BenchmarkHTTPInitialize: initialize over streamable HTTP (a new session
// each time; the session is deleted outside the measurement).
func BenchmarkHTTPInitialize(b *testing.B) {
	d := startDaemon(b)
	h := newHTTP(b, d)
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		if _, msgs := h.post(benchInit); len(msgs) != 1 {
			b.Fatalf("initialize: %q", msgs)
		}
		lat = append(lat, time.Since(start))
		h.end()
	}
	report(b, lat)
}

// BenchmarkToolsListHTTP: tools/list in one HTTP session.
func BenchmarkToolsListHTTP(b *testing.B) {
	d := startDaemon(b)
	h := newHTTP(b, d)
	h.post(benchInit)
	h.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	defer h.end()
	lat := make([]time.Duration, 0, b.N)
	size := 0
	for b.Loop() {
		start := time.Now()
		_, msgs := h.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		lat = append(lat, time.Since(start))
		if len(msgs) != 1 {
			b.Fatalf("tools/list: %q", msgs)
		}
		size = len(msgs[0])
	}
	report(b, lat)
	b.ReportMetric(float64(size), "bytes")
	if size > 12*1024 {
		b.Errorf("tools/list answer is %d bytes, budget 12 KiB", size)
	}
}

// BenchmarkToolsListStdio: tools/list through the relay process.
func BenchmarkToolsListStdio(b *testing.B) {
	d := startDaemon(b)
	s := startStdio(b, d)
	c := &stdioConn{s: s}
	c.exchange(benchInit)
	c.exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	lat := make([]time.Duration, 0, b.N)
	size := 0
	for b.Loop() {
		start := time.Now()
		msgs := c.exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		lat = append(lat, time.Since(start))
		size = len(msgs[0])
	}
	report(b, lat)
	b.ReportMetric(float64(size), "bytes")
	s.close()
}

// report adds p50 and p95 in milliseconds.
func report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}
