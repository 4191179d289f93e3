package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchDoc builds a realistic observe-style context of at least size bytes:
// console messages and stack traces, network entries with URLs, header maps
// and JSON bodies (as strings, the way CDP hands them over), and storage —
// with a secret in roughly one entry in ten. Deterministic.
func benchDoc(size int) []byte {
	r := rand.New(rand.NewPCG(7, 7))
	hex := func(n int) string {
		const h = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = h[r.IntN(16)]
		}
		return string(b)
	}
	secrets := []string{"Bearer " + hex(40), testJWT, gh36, awsKey, "4111 1111 1111 1111",
		"DE89 3704 0044 0532 0130 00", openai, "sk_live_4eC39HqLyjWDarjtT1zdp7dc"}
	plain := []string{
		"GET https://app.example.test/api/items?page=%d&sort=created_at 200 (OK) in %dms",
		"Warning: Each child in a list should have a unique \"key\" prop. Check the render method of `ItemList`.",
		"TypeError: Cannot read properties of undefined (reading 'map')\n    at ItemList (https://app.example.test/static/js/main.4f3c2a.js:2:%d)\n    at renderWithHooks (https://app.example.test/static/js/vendor.js:1:%d)",
		"[analytics] event=page_view id=%s ts=%d",
		"WebSocket connection to 'wss://rt.example.test/socket?v=%d' failed: Connection closed before receiving a handshake response",
		"Download the React DevTools for a better development experience: https://reactjs.org/link/react-devtools %d %d",
	}
	var console, network []map[string]any
	doc := map[string]any{"tab_id": 7, "url": "https://app.example.test/dashboard?tab=orders"}
	for n := 0; ; n++ {
		text := plain[n%len(plain)]
		switch n % len(plain) {
		case 3:
			text = fmt.Sprintf(text, hex(32), 1718035200000+n)
		case 1:
		default:
			text = fmt.Sprintf(text, n, 30+n%400)
		}
		if n%10 == 9 {
			text = "auth debug: token " + secrets[n%len(secrets)] + " for user bob"
		}
		console = append(console, map[string]any{"level": "log", "text": text, "ts": 1718035200.123 + float64(n),
			"url": "https://app.example.test/static/js/main.4f3c2a.js", "line": 100 + n})
		items := make([]map[string]any, 4)
		for i := range items {
			items[i] = map[string]any{"id": hex(8) + "-" + hex(4) + "-4" + hex(3) + "-a" + hex(3) + "-" + hex(12),
				"name": "Widget " + hex(4), "price": 19.99 + float64(i), "qty": i + 1,
				"created_at": "2024-06-10T12:34:56.789Z", "description": "A sturdy widget, keyboard friendly, with keyframes."}
		}
		body, _ := json.Marshal(map[string]any{"items": items, "total": 128, "next": "/api/items?page=" + fmt.Sprint(n+1)})
		req := map[string]any{"method": "GET", "status": 200, "type": "fetch",
			"url": fmt.Sprintf("https://api.example.test/v1/items?page=%d&q=widgets", n),
			"requestHeaders": map[string]any{"Accept": "application/json", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0",
				"Referer": "https://app.example.test/dashboard"},
			"responseHeaders": map[string]any{"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store",
				"Date": "Mon, 10 Jun 2024 12:34:56 GMT", "ETag": `W/"` + hex(16) + `"`},
			"responseBody": string(body)}
		if n%5 == 4 {
			req["method"] = "POST"
			req["url"] = "https://api.example.test/v1/login?redirect=%2Fhome&access_token=" + hex(24)
			req["requestHeaders"].(map[string]any)["Authorization"] = "Bearer " + hex(40)
			req["requestHeaders"].(map[string]any)["Cookie"] = "sid=" + hex(26) + "; theme=dark; _ga=GA1.2.3.4"
			req["requestBody"] = `{"username":"bob","password":"` + hex(12) + `","remember":true}`
		}
		network = append(network, req)
		doc["console"], doc["network"] = console, network
		doc["storage"] = map[string]any{"localStorage": map[string]any{"theme": "dark", "refresh_token": hex(40)},
			"sessionStorage": map[string]any{"draft": "hello"}}
		raw, _ := json.Marshal(doc)
		if len(raw) >= size {
			return raw
		}
	}
}

func benchContext(size int) string { return string(benchDoc(size)) }

// BenchmarkRedact100KB redacts a realistic 100 KB context the way the
// daemon will (structure-aware JSON). Reports MB/s and the p95 latency.
func BenchmarkRedact100KB(b *testing.B) {
	e := defaultEngine(b)
	doc := benchDoc(100 << 10)
	b.Run("JSON", func(b *testing.B) { benchLatency(b, len(doc), func() error { _, _, err := e.JSON(doc); return err }) })
	text := string(doc)
	b.Run("Text", func(b *testing.B) { benchLatency(b, len(text), func() error { _, _, err := e.Text(text); return err }) })
	var v any
	require.NoError(b, json.Unmarshal(doc, &v))
	b.Run("Value", func(b *testing.B) { benchLatency(b, len(doc), func() error { _, _, err := e.Value(v); return err }) })
	// What the dispatcher does with a tool result: build the context's
	// JSON from Go values, then redact it.
	b.Run("BuildAndRedact", func(b *testing.B) {
		benchLatency(b, len(doc), func() error {
			raw, err := json.Marshal(v)
			if err != nil {
				return err
			}
			_, _, err = e.JSON(raw)
			return err
		})
	})
	logs := consoleText(100 << 10)
	b.Run("ConsoleText", func(b *testing.B) { benchLatency(b, len(logs), func() error { _, _, err := e.Text(logs); return err }) })
}

// benchLatency runs f b.N times and reports MB/s, wall-clock p50/p95 and,
// on Linux, p95 of the thread's CPU time per op: on a shared machine the
// wall clock also measures the neighbours, CPU time measures the engine.
func benchLatency(b *testing.B, n int, f func() error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.SetBytes(int64(n))
	b.ReportAllocs()
	wall := make([]time.Duration, 0, b.N)
	cpu := make([]int64, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		c0, ok := threadCPU()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		wall = append(wall, time.Since(t0))
		if c1, _ := threadCPU(); ok {
			cpu = append(cpu, c1-c0)
		}
	}
	pct := func(p int) float64 { return float64(wall[len(wall)*p/100].Microseconds()) / 1000 }
	slices.Sort(wall)
	if len(wall) > 0 {
		b.ReportMetric(pct(50), "p50-ms")
		b.ReportMetric(pct(95), "p95-ms")
	}
	if slices.Sort(cpu); len(cpu) > 0 {
		b.ReportMetric(float64(cpu[len(cpu)*95/100])/1e6, "p95-cpu-ms")
	}
}

// consoleText is size bytes of plain console output (no JSON structure).
func consoleText(size int) string {
	var b []byte
	for n := 0; len(b) < size; n++ {
		b = fmt.Appendf(b, "[%d] GET https://app.example.test/api/items?page=%d&sort=name 200 in %dms user=bob email=bob@example.test\n", n, n, n%300)
		if n%20 == 19 {
			b = fmt.Appendf(b, "debug Authorization: Bearer %s cookie sid=%d\n", openai, n)
		}
	}
	return string(b)
}
