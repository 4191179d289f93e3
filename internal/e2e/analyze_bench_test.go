package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkE2EAnalyze measures analyze accessibility (axe-core at WCAG AA,
// in Gasoline's isolated world) and visual_diff (masked viewport
// screenshot, PNG decode, pixelmatch, diff image written) on the bench's
// ~3,000-element page, over MCP through the whole chain. The first
// accessibility call also injects axe-core (the extension reads its
// vendored copy and evaluates it in the world): reported as first-ms.
//
//	go test -run '^$' -bench E2EAnalyze -benchtime 20x ./internal/e2e
func BenchmarkE2EAnalyze(b *testing.B) {
	x := startAnalyze(b, "analyze-bench", ChainOptions{})
	tab := x.newTab(x.PageURL("pages/large.html"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	call := func(args map[string]any) (*mcp.CallToolResult, error) {
		args["tab_id"] = tab
		args["timeout_ms"] = 120_000
		return x.cs.CallTool(ctx, &mcp.CallToolParams{Name: "analyze", Arguments: args})
	}
	var inPage latencies // axe-core's own time in the page
	check := func(r *mcp.CallToolResult, err error) (int, error) {
		if err != nil {
			return 0, err
		}
		if r.IsError {
			b.Fatalf("%v", r.Content[0].(*mcp.TextContent).Text)
		}
		if m, ok := r.StructuredContent.(map[string]any); ok {
			if ms, ok := m["page_ms"].(float64); ok {
				inPage = append(inPage, time.Duration(ms*float64(time.Millisecond)))
			}
		}
		return len(r.Content[0].(*mcp.TextContent).Text), nil
	}
	var first time.Duration
	ops := []struct {
		name string
		args func() map[string]any
		warm func()
	}{
		{"accessibility_large", func() map[string]any { return map[string]any{"what": "accessibility"} }, func() {
			start := time.Now()
			if _, err := check(call(map[string]any{"what": "accessibility"})); err != nil {
				b.Fatal(err)
			}
			first = time.Since(start)
		}},
		{"visual_diff_large", func() map[string]any { return map[string]any{"what": "visual_diff", "baseline": "large"} }, func() {
			if _, err := check(call(map[string]any{"what": "visual_diff", "baseline": "large"})); err != nil { // stores it
				b.Fatal(err)
			}
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			op.warm()
			for range 2 {
				if _, err := check(call(op.args())); err != nil {
					b.Fatal(err)
				}
			}
			var lat latencies
			var size int
			inPage = inPage[:0]
			b.ResetTimer()
			for b.Loop() {
				if err := lat.time(func() (err error) { size, err = check(call(op.args())); return err }); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			lat.report(b)
			b.ReportMetric(float64(size), "text-bytes")
			if op.name == "accessibility_large" {
				b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
				b.ReportMetric(median(inPage), "axe-p50-ms")
			}
		})
	}
}
