package session

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/gasoline-mcp/gasoline/internal/waitnote"
)

// A command whose run marks a wait (waitnote.Begin, as a tab's action
// queue does) is listed with what it waits for until the wait ends, and
// its context names it by its correlation id.
func TestPendingCommandSaysWhatItWaitsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, nil)
		s, _, _, _ := m.Attach("a", Stdio)
		waiting, running, finish := make(chan struct{}), make(chan struct{}), make(chan struct{})
		var id string
		cmd, err := s.Start("interact", "click", func(ctx context.Context) any {
			id = waitnote.ID(ctx)
			end := waitnote.Begin(ctx, "tab 3: call c_x acts on it")
			<-waiting
			end()
			<-running
			waitnote.Begin(ctx, "tab 3: another call acts on it") // never ended: finishing clears it
			<-finish
			return "done"
		})
		if err != nil {
			t.Fatal(err)
		}
		info := func() CommandInfo {
			synctest.Wait()
			return s.Commands(0, 10)[0]
		}
		if got := info(); got.WaitingFor != "tab 3: call c_x acts on it" || got.Status != "pending" {
			t.Fatalf("while waiting: %+v", got)
		}
		if id != cmd.ID {
			t.Fatalf("the run's context names %q, want the command's id %q", id, cmd.ID)
		}
		close(waiting)
		if got := info(); got.WaitingFor != "" || got.Status != "pending" {
			t.Fatalf("once running: %+v", got)
		}
		close(running)
		close(finish)
		if got := info(); got.WaitingFor != "" || got.Status != "complete" {
			t.Fatalf("once complete: %+v", got)
		}
	})
}
