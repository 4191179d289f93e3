package session

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestManagerHoldsItsSessionCap: clients that keep starting sessions
// (and never end them) hold at most MaxSessions; the ones whose client
// went away go first, then those seen least recently, and each evicted
// session ends (OnEnd) so what it held is released.
func TestManagerHoldsItsSessionCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, &Options{MaxSessions: 4})
		var ended []string
		m.OnEnd(func(id string) { ended = append(ended, id) })
		_, genA, _, _ := m.Attach("a", Stdio)
		for _, id := range []string{"b", "c", "d"} {
			time.Sleep(time.Second)
			m.Attach(id, HTTP)
		}
		m.Detach("a", genA) // degraded: its client may come back
		time.Sleep(time.Second)
		m.Attach("e", HTTP)
		if m.Get("a") != nil || !slices.Equal(ended, []string{"a"}) {
			t.Fatalf("the degraded session was not the one evicted: ended %v", ended)
		}
		for i := range 20 {
			time.Sleep(time.Second)
			m.Attach(fmt.Sprint("n", i), HTTP)
			if n := m.Len(); n > 4 {
				t.Fatalf("%d sessions after %d more, cap 4", n, i+1)
			}
			if z := m.Sizes(); z[0].Over() || z[1].Over() {
				t.Fatalf("sizes over their cap: %+v", z)
			}
		}
		if !slices.Equal(ended[:4], []string{"a", "b", "c", "d"}) {
			t.Fatalf("ended %v: want the least recently seen first", ended[:4])
		}
		if len(ended) != 21 {
			t.Fatalf("%d sessions ended, want 21", len(ended))
		}
	})
}

// TestOnEndRunsWhenASessionEnds: closing a session and its TTL running
// out end it; a manager that stops ends none (they are kept for the next
// daemon).
func TestOnEndRunsWhenASessionEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		m := New(ctx, &Options{TTL: time.Minute})
		var ended []string
		m.OnEnd(func(id string) { ended = append(ended, id) })
		m.Attach("closed", HTTP)
		m.Close("closed")
		_, gen, _, _ := m.Attach("expired", Stdio)
		m.Detach("expired", gen)
		m.Attach("live", Stdio)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		cancel()
		m.Wait()
		if !slices.Equal(ended, []string{"closed", "expired"}) {
			t.Fatalf("ended %v, want [closed expired]", ended)
		}
	})
}

// TestResultsHoldTheirCaps: a session's finished results past the count
// cap, and all sessions' past the byte cap, are evicted as they come.
func TestResultsHoldTheirCaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, &Options{MaxHistory: 5, MaxResultBytes: 1000, Size: func(any) int64 { return 100 }})
		for _, id := range []string{"a", "b", "c"} {
			s, _, _, _ := m.Attach(id, HTTP)
			for range 20 {
				s.Start("observe", "page", func(context.Context) any { return "x" })
				synctest.Wait()
			}
		}
		res := m.Sizes()[1]
		if res.Len != 10 || res.Bytes != 1000 || res.Over() {
			t.Fatalf("results %+v: want 10 kept, 1000 bytes (the byte cap)", res)
		}
	})
}
