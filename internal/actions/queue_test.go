package actions

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestFIFOGrantsInArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f fifo
		if err := f.lock(t.Context()); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := f.lock(t.Context()); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				f.unlock()
			}()
			synctest.Wait() // goroutine i is queued before i+1 starts
		}
		if got := f.queued(); got != 6 {
			t.Errorf("queued = %d, want 6", got)
		}
		f.unlock()
		wg.Wait()
		for i, v := range order {
			if v != i {
				t.Fatalf("granted in order %v, want 0..4", order)
			}
		}
		if got := f.queued(); got != 0 {
			t.Errorf("queued after all = %d, want 0", got)
		}
	})
}

func TestFIFOWaiterLeavesOnContextEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var f fifo
		if err := f.lock(t.Context()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		errc := make(chan error, 1)
		go func() { errc <- f.lock(ctx) }()
		synctest.Wait()
		time.Sleep(2 * time.Second) // fake time: the waiter's deadline passes
		if err := <-errc; err != context.DeadlineExceeded {
			t.Fatalf("lock after the deadline: %v, want DeadlineExceeded", err)
		}
		if got := f.queued(); got != 1 {
			t.Errorf("queued = %d, want 1 (the holder only)", got)
		}
		f.unlock()
		if err := f.lock(t.Context()); err != nil { // free again
			t.Fatal(err)
		}
	})
}

func TestFIFOHandoffRacingCancel(t *testing.T) {
	// A waiter whose context ends just as the lock is handed to it passes
	// the lock on instead of dropping it.
	for range 200 {
		var f fifo
		_ = f.lock(context.Background())
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- f.lock(ctx) }()
		for f.queued() != 2 {
			runtime.Gosched()
		}
		go cancel()
		f.unlock()
		if err := <-errc; err == nil {
			f.unlock()
		}
		if err := f.lock(context.Background()); err != nil {
			t.Fatal(err)
		}
		f.unlock()
		if f.queued() != 0 {
			t.Fatalf("queued = %d after the race, want 0", f.queued())
		}
	}
}
