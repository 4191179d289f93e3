package routine

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

func TestWaitWaitsForRunningGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewGroup(t.Context())
		release := make(chan struct{})
		var got context.Context
		if !g.Go(func(ctx context.Context) { got = ctx; <-release }) {
			t.Fatal("Go on a live group: got false, want true")
		}
		var waited atomic.Bool
		go func() { g.Wait(); waited.Store(true) }()
		synctest.Wait()
		if waited.Load() {
			t.Fatal("Wait returned while a goroutine was running")
		}
		close(release)
		synctest.Wait()
		if !waited.Load() {
			t.Fatal("Wait did not return after the goroutine ended")
		}
		if got != t.Context() {
			t.Errorf("f got context %v, want the group's", got)
		}
	})
}

func TestWaitOnIdleGroupReturns(t *testing.T) {
	g := NewGroup(t.Context())
	g.Wait()
	g.Go(func(context.Context) {})
	g.Wait()
	g.Wait()
}

func TestGoAfterContextEndedStartsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	g := NewGroup(ctx)
	cancel()
	ran := false
	if g.Go(func(context.Context) { ran = true }) {
		t.Error("Go after the context ended: got true, want false")
	}
	g.Wait()
	if ran {
		t.Error("f ran after the context ended")
	}
}

// TestWaitAfterCancelIsFinal: callers of Go race the cancel; once Wait
// has returned after the cancel, nothing of the group runs or starts.
func TestWaitAfterCancelIsFinal(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	g := NewGroup(ctx)
	var running, startedLate atomic.Int64
	var stopped atomic.Bool
	var callers sync.WaitGroup
	for range 8 {
		callers.Go(func() {
			for range 200 {
				g.Go(func(ctx context.Context) {
					if stopped.Load() {
						startedLate.Add(1)
					}
					running.Add(1)
					<-ctx.Done()
					running.Add(-1)
				})
			}
		})
	}
	cancel()
	g.Wait()
	stopped.Store(true)
	if n := running.Load(); n != 0 {
		t.Errorf("after Wait: %d goroutines running, want 0", n)
	}
	callers.Wait()
	g.Wait()
	if n := startedLate.Load(); n != 0 {
		t.Errorf("%d goroutines started after Wait returned, want 0", n)
	}
}
