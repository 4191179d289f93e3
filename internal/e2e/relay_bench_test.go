package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/coder/websocket"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// Relay benchmarks on the real chain: what a CDP call costs through the
// extension relay compared with a direct CDP WebSocket on the same
// Chromium, what a screenshot costs over MCP, and what a 100k-line console
// flood costs the daemon.

// p50 returns the median in milliseconds.
func p50(l latencies) float64 {
	s := slices.Clone(l)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}

// BenchmarkE2ERelayOverhead times Runtime.evaluate(1+1) on one tab through
// the relay (daemon → host → extension → chrome.debugger) and over a
// direct CDP WebSocket to the same page target, interleaved, and reports
// both medians and the relay's overhead at p50 (goal: ≤ 1 ms).
func BenchmarkE2ERelayOverhead(b *testing.B) {
	r := startRelay(b, ChainOptions{RemoteDebugging: true})
	port := devtoolsPort(b, r.Browser.UserDataDir)
	a := r.client(b, "bench")
	tab := a.newTab(r.url("pages/title.html"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	relayed := r.Server.CDP(tab)
	direct := dialCDP(b, findTarget(b, port, "page", "pages/title.html").WSURL)
	yes := true
	viaRelay := func() error {
		res, err := cdproto.Call(ctx, relayed, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: "1+1", ReturnByValue: &yes})
		if err == nil && string(res.Result.Value) != "2" {
			b.Fatalf("relay: 1+1 = %s", res.Result.Value)
		}
		return err
	}
	viaDirect := func() error {
		raw, err := direct.call(ctx, "Runtime.evaluate", map[string]any{"expression": "1+1", "returnByValue": true})
		var res struct {
			Result struct{ Value json.RawMessage } `json:"result"`
		}
		if err == nil && (json.Unmarshal(raw, &res) != nil || string(res.Result.Value) != "2") {
			b.Fatalf("direct: 1+1 = %s", raw)
		}
		return err
	}
	for range 50 { // warm-up
		if viaRelay() != nil || viaDirect() != nil {
			b.Fatal("warm-up failed")
		}
	}
	var rl, dl latencies
	b.ResetTimer()
	for b.Loop() {
		if err := rl.time(viaRelay); err != nil {
			b.Fatal(err)
		}
		if err := dl.time(viaDirect); err != nil {
			b.Fatal(err)
		}
	}
	rl.report(b)
	b.ReportMetric(p50(dl), "direct-p50-ms")
	b.ReportMetric(p50(rl)-p50(dl), "overhead-p50-ms")
}

// BenchmarkE2EScreenshot times observe screenshot over MCP (the whole
// path: dispatcher, relay, capture, masking, image content) for PNG and
// JPEG, in the agent's background tab and once the tab is shown, on a page
// with nothing to mask (watched, not painted), on one with three sensitive
// fields and on the form page make bench captures (one password field;
// both painted).
func BenchmarkE2EScreenshot(b *testing.B) {
	r := startRelay(b, ChainOptions{})
	a := r.client(b, "bench")
	for _, p := range []struct{ name, page string }{{"masked", "pages/secrets/pay.html"}, {"masked-form", "pages/form.html"}} {
		tab := a.newTab(r.url(p.page))
		b.Run(p.name+"/png", func(b *testing.B) {
			args := map[string]any{"what": "screenshot", "tab_id": tab}
			var lat latencies
			for b.Loop() {
				lat.time(func() error { a.ok("observe", args); return nil })
			}
			lat.report(b)
		})
	}
	tab := a.newTab(r.url("pages/relay/vitals.html"))
	for _, vis := range []string{"hidden", "visible"} {
		if vis == "visible" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, err := r.Link.Call(ctx, "tabs.activate", map[string]int{"tab_id": tab})
			cancel()
			if err != nil {
				b.Fatal(err)
			}
		}
		for _, format := range []string{"png", "jpeg"} {
			b.Run(vis+"/"+format, func(b *testing.B) {
				args := map[string]any{"what": "screenshot", "format": format}
				var lat latencies
				for b.Loop() {
					lat.time(func() error { a.ok("observe", args); return nil })
				}
				lat.report(b)
			})
		}
	}
	// A page with a shadow root, a same-origin frame, an out-of-process
	// frame (masked in its own session: two more round trips) and a
	// cross-origin frame in the page's process (painted black).
	sibling := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(RepoRoot(), "testdata"))))
	b.Cleanup(sibling.Close)
	framed := a.newTab(r.url("pages/secrets/framed.html?port=" + strconv.Itoa(sibling.Listener.Addr().(*net.TCPAddr).Port)))
	b.Run("frames/png", func(b *testing.B) {
		args := map[string]any{"what": "screenshot", "tab_id": framed}
		var lat latencies
		for b.Loop() {
			lat.time(func() error { a.ok("observe", args); return nil })
		}
		lat.report(b)
	})
}

// BenchmarkE2EConsoleFlood: a page logs 100,000 lines; the daemon captures
// them through the real chain. Reports events/s end to end and the
// daemon's heap after the flood (the buffers are bounded: old entries are
// evicted and counted).
func BenchmarkE2EConsoleFlood(b *testing.B) {
	r := startRelay(b, ChainOptions{})
	a := r.client(b, "bench")
	const n = 100_000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for b.Loop() {
		tab := a.newTab(r.url("pages/relay/flood.html"))
		heapBefore := heap()
		start := time.Now()
		// Scheduled, so the evaluate answers at once: a synchronous flood of
		// 100k lines outlasts the relay's per-command timeout on a loaded
		// machine.
		if _, err := evaluate(ctx, r.Server.CDP(tab), "setTimeout(flood, 0)"); err != nil {
			b.Fatal(err)
		}
		seen := func() uint64 {
			st, _ := r.Server.Capture().TabStats(tab)
			k := st.Kinds[capture.KindConsole]
			return uint64(k.Entries) + k.Evicted
		}
		deadline := time.Now().Add(5 * time.Minute)
		for seen() < n+1 { // the lines and the done marker
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d console events arrived", seen(), n+1)
			}
			time.Sleep(5 * time.Millisecond) // events arrive from Chrome; nothing to wait on
		}
		elapsed := time.Since(start)
		st, _ := r.Server.Capture().TabStats(tab)
		b.ReportMetric(float64(n)/elapsed.Seconds(), "events/s")
		b.ReportMetric(float64(heap())/(1<<20), "heap-MB")
		b.ReportMetric((float64(heap())-float64(heapBefore))/(1<<20), "heap-growth-MB")
		b.ReportMetric(float64(st.Kinds[capture.KindConsole].Bytes)/(1<<20), "console-buffer-MB")
		b.ReportMetric(float64(st.Kinds[capture.KindConsole].Entries), "kept")
		a.ok("interact", map[string]any{"what": "close_tab", "tab_id": tab})
	}
}

// BenchmarkE2EConsoleFloodDirect is the same flood read by a direct CDP
// WebSocket client on a tab the relay is not attached to: what Chrome
// itself emits per second on this machine, the ceiling for the relay.
func BenchmarkE2EConsoleFloodDirect(b *testing.B) {
	r := startRelay(b, ChainOptions{RemoteDebugging: true})
	port := devtoolsPort(b, r.Browser.UserDataDir)
	const n = 100_000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := r.Link.Call(ctx, "tabs.create", map[string]any{"url": r.url("pages/relay/flood.html"), "wait_until": "load"}); err != nil {
		b.Fatal(err)
	}
	d := dialCDP(b, findTarget(b, port, "page", "flood.html").WSURL)
	if _, err := d.call(ctx, "Runtime.enable", map[string]any{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		start := time.Now()
		msg, _ := json.Marshal(map[string]any{"id": 1_000_000, "method": "Runtime.evaluate", "params": map[string]any{"expression": "flood()"}})
		if err := d.c.Write(ctx, websocket.MessageText, msg); err != nil {
			b.Fatal(err)
		}
		for seen := 0; seen < n+1; {
			_, raw, err := d.c.Read(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(raw[:min(len(raw), 64)], []byte(`"Runtime.consoleAPICalled"`)) {
				seen++
			}
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "events/s")
	}
}

// heap is the live heap after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
