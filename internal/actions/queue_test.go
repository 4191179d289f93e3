package actions

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/waitnote"
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

// A caller that has to wait says so in its wait note, naming the call
// that holds the lock (the one handed it, too), and the note clears once
// the caller has the lock.
func TestFIFOWaiterNotesTheHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := fifo{name: "tab 3"}
		var mu sync.Mutex
		notes := map[string][]string{}
		call := func(id string) context.Context {
			return waitnote.With(t.Context(), id, func(r string) {
				mu.Lock()
				notes[id] = append(notes[id], r)
				mu.Unlock()
			})
		}
		got := make(chan string, 3)
		lockAsync := func(id string) {
			go func() {
				if err := f.lock(call(id)); err != nil {
					t.Error(err)
					return
				}
				got <- id
			}()
			synctest.Wait()
		}
		if err := f.lock(call("c_1")); err != nil {
			t.Fatal(err)
		}
		lockAsync("c_2")
		lockAsync("c_3")
		f.unlock() // c_2 is handed the lock
		if id := <-got; id != "c_2" {
			t.Fatalf("granted to %s first, want c_2", id)
		}
		lockAsync("c_4") // behind the handed-over holder
		f.unlock()
		<-got
		f.unlock()
		<-got
		f.unlock()
		mu.Lock()
		defer mu.Unlock()
		want := map[string][]string{
			"c_2": {"tab 3: call c_1 acts on it", ""},
			"c_3": {"tab 3: call c_1 acts on it", ""},
			"c_4": {"tab 3: call c_2 acts on it", ""},
		}
		for id, w := range want {
			if !slices.Equal(notes[id], w) {
				t.Errorf("%s's notes = %q, want %q", id, notes[id], w)
			}
		}
		if len(notes["c_1"]) != 0 {
			t.Errorf("the first caller never waited, yet noted %q", notes["c_1"])
		}
		if f.queued() != 0 {
			t.Errorf("queued = %d after all unlocked", f.queued())
		}
	})
}
