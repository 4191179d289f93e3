//go:build linux

package e2e

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkE2ERetainedResults: 4 clients burst large results — observe
// network_bodies of a page that fetched 16 bodies of 64 KB, about 1 MiB of
// text each answer — every one kept for observe command_result, and the
// daemon's memory is reported: its resident set before, after, and at its
// peak. Retained results are capped at 200 per session and 64 MiB in
// all (issue 18 item 5); before the caps a burst like this grew the daemon
// by every result until the next sweep. Figures, not assertions.
func BenchmarkE2ERetainedResults(b *testing.B) {
	s := startSpawned(b, localDevPolicy)
	page := s.site + "/pages/retain/bodies.html"
	const clients = 4
	cs := make([]*client, clients)
	tabs := make([]int, clients)
	for i := range cs {
		cs[i] = &client{t: b, cs: s.userClient(b, "burst")}
		tabs[i] = cs[i].newTab(page)
	}
	shot := func(c *client, tab int) (int, error) {
		res, err := c.cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "observe",
			Arguments: map[string]any{"what": "network_bodies", "url": "big.json", "limit": 16, "tab_id": tab}})
		if err != nil {
			return 0, err
		}
		n := 0
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				n += len(tc.Text)
			}
		}
		if res.IsError || n < 512<<10 {
			return n, fmt.Errorf("network_bodies answered %d bytes (error %v)", n, res.IsError)
		}
		return n, nil
	}
	for i, c := range cs { // the page's 16 responses are captured
		c.until("network_bodies", map[string]any{"url": "big.json", "limit": 16, "tab_id": tabs[i]}, 30*time.Second,
			func(a answer) bool { return len(a.Text) > 512<<10 })
	}
	if _, err := shot(cs[0], tabs[0]); err != nil { // warm-up
		b.Fatal(err)
	}
	pid := s.pid(b)
	before, _ := rss(pid)
	var mu sync.Mutex
	var lat latencies
	var bytes, calls int
	b.ResetTimer()
	var wg sync.WaitGroup
	for i := range cs {
		wg.Go(func() {
			for k := i; k < b.N; k += clients {
				start := time.Now()
				n, err := shot(cs[i], tabs[i])
				if err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				lat = append(lat, time.Since(start))
				bytes += n
				calls++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	after, peak := rss(pid)
	lat.report(b)
	if calls > 0 {
		b.ReportMetric(float64(bytes)/float64(calls)/1024, "result-KiB")
	}
	b.ReportMetric(float64(before)/(1<<20), "rss-before-MiB")
	b.ReportMetric(float64(after)/(1<<20), "rss-after-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "rss-peak-MiB")
}
