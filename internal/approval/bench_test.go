package approval

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkApprovalRoundTrip measures request → decision delivered →
// token consumed, excluding the human: a goroutine subscribed to events
// approves each request as soon as it is announced. It reports the p50 and
// p95 latency per round trip (target p95 ≤ 15 ms).
func BenchmarkApprovalRoundTrip(b *testing.B) {
	b.Run("waiting call", func(b *testing.B) {
		e, stop := benchEngine(b)
		defer stop()
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start := time.Now()
			g, err := e.Require(b.Context(), click(), 15*time.Second)
			if err != nil || g.By != ByApproval {
				b.Fatalf("Require = %+v, %v", g, err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
	b.Run("retry with approval_id", func(b *testing.B) {
		e := newEngine(b, nil)
		lat := make([]time.Duration, 0, b.N)
		for b.Loop() {
			start := time.Now()
			_, err := e.Require(b.Context(), click(), 0)
			var re *RequiredError
			if !asRequired(err, &re) {
				b.Fatalf("Require = %v", err)
			}
			tok, err := e.Approve(re.Request.RequestID, Decision{Kind: Once})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.Require(b.Context(), withApproval(click(), tok.ApprovalID), 0); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportPercentiles(b, lat)
	})
}

// benchEngine returns an engine whose "user" approves every request at
// once, and a stop function that ends that goroutine and waits for it.
func benchEngine(b *testing.B) (*Engine, func()) {
	e := newEngine(b, &Options{SubscriberBuffer: 1024})
	events, cancel := e.Subscribe()
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev := range events {
			if ev.Type == Requested {
				if _, err := e.Approve(ev.Request.RequestID, Decision{Kind: Once}); err != nil {
					b.Errorf("Approve: %v", err)
				}
			}
		}
	})
	return e, func() { cancel(); wg.Wait() }
}

func asRequired(err error, re **RequiredError) bool { return errors.As(err, re) }

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(p(0.50), "p50-µs")
	b.ReportMetric(p(0.95), "p95-µs")
	b.ReportMetric(p(0.99), "p99-µs")
}
