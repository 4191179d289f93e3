package e2e

import (
	"context"
	"slices"
	"testing"
	"time"
)

// latencies records per-call durations and reports p50/p95 beside ns/op.
type latencies []time.Duration

func (l *latencies) time(f func() error) error {
	start := time.Now()
	err := f()
	*l = append(*l, time.Since(start))
	return err
}

func (l latencies) report(b *testing.B) { l.reportAs(b, "") }

// reportAs reports p50/p95 with a prefix on the units (several series in
// one benchmark).
func (l latencies) reportAs(b *testing.B, prefix string) {
	if len(l) == 0 {
		return
	}
	s := slices.Clone(l)
	slices.Sort(s)
	q := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), prefix+"p50-ms")
	b.ReportMetric(q(0.95), prefix+"p95-ms")
}

// BenchmarkE2EEcho: daemon → host → extension → host → daemon `ping`.
func BenchmarkE2EEcho(b *testing.B) {
	c := StartChain(b, hostBin)
	ctx := context.Background()
	for range 20 { // warm-up
		if _, err := c.Link.Call(ctx, "ping", nil); err != nil {
			b.Fatal(err)
		}
	}
	var lat latencies
	b.ResetTimer()
	for b.Loop() {
		if err := lat.time(func() error { _, err := c.Link.Call(ctx, "ping", map[string]int{"echo": 1}); return err }); err != nil {
			b.Fatal(err)
		}
	}
	lat.report(b)
}

// BenchmarkE2ERelayedEvaluate: daemon → host → extension →
// chrome.debugger Runtime.evaluate(1+1) → back.
func BenchmarkE2ERelayedEvaluate(b *testing.B) {
	c := StartChain(b, hostBin)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := openTab(b, ctx, c, c.PageURL("pages/title.html"))
	call := func() error {
		v, err := evaluate(ctx, s, "1+1")
		if err != nil {
			return err
		}
		if string(v) != "2" {
			b.Fatalf("evaluate 1+1 = %s", v)
		}
		return nil
	}
	for range 20 {
		if err := call(); err != nil {
			b.Fatal(err)
		}
	}
	var lat latencies
	b.ResetTimer()
	for b.Loop() {
		if err := lat.time(call); err != nil {
			b.Fatal(err)
		}
	}
	lat.report(b)
}
