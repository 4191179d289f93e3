//go:build linux

package e2e

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/bridge"
	"github.com/gasoline-mcp/gasoline/internal/remote"
)

// BenchmarkE2ESSHForward: the round trip a remote agent's SSH forward
// adds. One MCP call (configure health: no browser on the way, so the
// transport is all that is measured) alternately straight to the daemon
// with the agent credential and through a real `ssh -R` forward (Debian's
// sshd on loopback) with a remote agent's credential. It reports each
// series' p50/p95 and the p50 the forward adds (added-p50-ms).
func BenchmarkE2ESSHForward(b *testing.B) {
	needSSH(b)
	home, port := b.TempDir(), FreePort(b)
	tok, _, err := remote.Add(home, remote.AddOptions{Name: "bench", Tools: remote.DefaultTools, Origins: []string{"*"},
		TTL: time.Hour, Client: "json"}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *bridge.Server, 1)
	done := make(chan error, 1)
	go func() {
		done <- bridge.Run(ctx, bridge.Config{Dir: home, Port: port, Ready: func(s *bridge.Server) { ready <- s }})
	}()
	b.Cleanup(func() { cancel(); <-done })
	var srv *bridge.Server
	select {
	case srv = <-ready:
	case err := <-done:
		b.Fatalf("daemon: %v", err)
	}
	s := startSSHD(b)
	rport := FreePort(b)
	s.forward(b, "127.0.0.1:"+strconv.Itoa(rport)+":127.0.0.1:"+strconv.Itoa(port), rport)
	direct := mcpClient(b, port, srv.Token(), "bench-direct")
	forwarded := mcpClient(b, rport, tok, "bench-forwarded")
	args := map[string]any{"what": "health"}
	for range 20 { // warm-up: connections, the SDK's first calls
		direct.ok("configure", args)
		forwarded.ok("configure", args)
	}
	var d, f latencies
	b.ResetTimer()
	for b.Loop() {
		d.time(func() error { direct.ok("configure", args); return nil })
		f.time(func() error { forwarded.ok("configure", args); return nil })
	}
	b.StopTimer()
	d.reportAs(b, "direct-")
	f.reportAs(b, "ssh-")
	b.ReportMetric(seriesP50(f)-seriesP50(d), "added-p50-ms")
}

// seriesP50 is a series' p50 in ms.
func seriesP50(l latencies) float64 {
	s := slices.Clone(l)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return float64(s[len(s)/2].Microseconds()) / 1000
}
