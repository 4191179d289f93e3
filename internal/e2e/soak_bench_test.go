//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkE2ESoak: 4 agents — 2 over streamable HTTP, 2 through
// `gasoline-host --mcp` — each in its own tab of the real browser, make
// mixed calls (reads, snapshots, screenshots, typing, clicks, scripts,
// navigations) for $GASOLINE_SOAK (a Go duration, default 2m), while a
// fifth comes and goes: a new session and a new tab each round, both
// ended after one round of calls (soak_churn_test.go). It reports
// calls, errors, p50/p95 per mode and the daemon's memory over time (a
// sample every $GASOLINE_SOAK_SAMPLE, default 10s: resident set, live
// heap, the size of every store), heap profiles at a third and at the end,
// and a verdict comparing the first and last thirds (soak_memory_test.go).
// `make soak`. Run once (-benchtime 1x): it measures, it asserts nothing.
func BenchmarkE2ESoak(b *testing.B) {
	dur := envDuration(b, "GASOLINE_SOAK", 2*time.Minute)
	every := envDuration(b, "GASOLINE_SOAK_SAMPLE", 10*time.Second)
	s := startSpawned(b, localDevPolicy)
	page := s.site + "/pages/form.html"
	agents := []*client{
		{t: b, cs: s.userClient(b, "soak-http-1")},
		{t: b, cs: s.userClient(b, "soak-http-2")},
		soakStdio(b, s, "soak-stdio-1"),
		soakStdio(b, s, "soak-stdio-2"),
	}
	tabs := make([]int, len(agents))
	for i, a := range agents {
		tabs[i] = a.newTab(page)
	}
	pid := s.pid(b)
	dbg, err := newDaemonDebug(s)
	if err != nil {
		b.Fatal(err)
	}
	st := newSoakStats()
	ctx, cancel := context.WithTimeout(b.Context(), dur)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { st.sample(ctx, pid, dbg, every, dur) })
	b.ResetTimer()
	for i, a := range agents {
		wg.Go(func() { soakAgent(ctx, a, tabs[i], page, st) })
	}
	wg.Go(func() { soakChurn(ctx, s, s.token(b), page, st) })
	wg.Wait()
	b.StopTimer()
	st.atRest(pid, dbg)
	st.report(b, dur)
}

func soakAgent(ctx context.Context, a *client, tab int, page string, st *soakStats) {
	for ctx.Err() == nil {
		for _, c := range soakCalls(tab, page) {
			key, args := c[0].(string), c[1].(map[string]any)
			tool, _, _ := strings.Cut(key, ".")
			start := time.Now()
			res, err := a.cs.CallTool(context.WithoutCancel(ctx), &mcp.CallToolParams{Name: tool, Arguments: args})
			st.record(key, time.Since(start), res, err)
			if ctx.Err() != nil {
				return
			}
		}
	}
}

// soakStdio is a go-sdk client over `gasoline-host --mcp`.
func soakStdio(b *testing.B, s *spawned, name string) *client {
	cmd := exec.Command(hostBin, "--mcp")
	cmd.Env = append(os.Environ(), s.env()...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return &client{t: b, cs: cs}
}

type soakStats struct {
	mu       sync.Mutex
	lat      map[string]latencies
	errs     map[string]int
	first    map[string]string // the first error of each mode
	samples  []soakSample
	profiles []string   // heap profiles written (or why not)
	rest     soakSample // the daemon at rest, after the agents stopped
	maxRSS   int64
}

func newSoakStats() *soakStats {
	return &soakStats{lat: map[string]latencies{}, errs: map[string]int{}, first: map[string]string{}}
}

func (st *soakStats) record(key string, d time.Duration, res *mcp.CallToolResult, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.lat[key] = append(st.lat[key], d)
	msg := ""
	switch {
	case err != nil:
		msg = err.Error()
	case res != nil && res.IsError:
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg = tc.Text
			}
		}
	}
	if msg != "" {
		st.errs[key]++
		if st.first[key] == "" {
			st.first[key] = msg
		}
	}
}

func (st *soakStats) report(b *testing.B, dur time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	keys := make([]string, 0, len(st.lat))
	calls, errs := 0, 0
	for k, l := range st.lat {
		keys = append(keys, k)
		calls += len(l)
		errs += st.errs[k]
	}
	sort.Strings(keys)
	var out strings.Builder
	fmt.Fprintf(&out, "soak: 4 agents (2 HTTP, 2 stdio) and 1 that comes and goes (a session and a tab per round) for %s: %d calls, %d errors\n", dur, calls, errs)
	fmt.Fprintf(&out, "%-28s %7s %7s %9s %9s\n", "mode", "calls", "errors", "p50 ms", "p95 ms")
	for _, k := range keys {
		l := slices.Clone(st.lat[k])
		slices.Sort(l)
		q := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))].Microseconds()) / 1000 }
		fmt.Fprintf(&out, "%-28s %7d %7d %9.1f %9.1f\n", k, len(l), st.errs[k], q(0.5), q(0.95))
		b.ReportMetric(q(0.5), k+"-p50-ms")
		b.ReportMetric(q(0.95), k+"-p95-ms")
		if st.first[k] != "" {
			fmt.Fprintf(&out, "    first error: %.300s\n", st.first[k])
		}
	}
	st.memoryReport(&out)
	fmt.Print(out.String()) // whole: the testing package cuts long benchmark logs
	b.ReportMetric(float64(calls), "calls")
	b.ReportMetric(float64(errs), "errors")
	b.ReportMetric(float64(st.maxRSS)/(1<<20), "rss-max-MiB")
}

func envDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}
