package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func newManager(t *testing.T, opts *Options) (*Manager, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := New(ctx, opts)
	t.Cleanup(func() { cancel(); m.Wait() })
	return m, cancel
}

func TestDegradedSessionExpiresAfterTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, &Options{TTL: time.Minute, ResultTTL: time.Minute})
		_, gen, resumed, err := m.Attach("a", Stdio)
		if err != nil || resumed {
			t.Fatalf("Attach = %v resumed %v", err, resumed)
		}
		if st, ht := m.Counts(); st != 1 || ht != 0 {
			t.Fatalf("Counts = %d,%d, want 1,0", st, ht)
		}
		m.Detach("a", gen)
		if st, _ := m.Counts(); st != 0 {
			t.Fatalf("a degraded session counts as live")
		}
		time.Sleep(50 * time.Second) // virtual time
		synctest.Wait()
		if s := m.Get("a"); s == nil || s.Info().State != Degraded {
			t.Fatalf("session gone before its TTL: %v", s)
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if s := m.Get("a"); s != nil {
			t.Fatalf("session kept after its TTL: %+v", s.Info())
		}
	})
}

func TestResumeKeepsCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, nil)
		s, gen, _, _ := m.Attach("a", Stdio)
		release := make(chan struct{})
		cmd, err := s.Start("observe", "page", func(ctx context.Context) any { <-release; return "done" })
		if err != nil {
			t.Fatal(err)
		}
		m.Detach("a", gen)
		close(release)
		synctest.Wait()

		s2, gen2, resumed, _ := m.Attach("a", Stdio)
		if !resumed || s2 != s || gen2 == gen {
			t.Fatalf("resume: same=%v resumed=%v gen %d→%d", s2 == s, resumed, gen, gen2)
		}
		c, ok := s2.Command(cmd.ID)
		if !ok {
			t.Fatal("command lost across resume")
		}
		if v, done := c.Result(); !done || v != "done" {
			t.Fatalf("Result = %v, %v", v, done)
		}
		// The replaced attachment's late Detach must not degrade the new one.
		m.Detach("a", gen)
		if got := s2.Info().State; got != Ready {
			t.Fatalf("state after stale Detach = %s, want ready", got)
		}
	})
}

func TestCommandsCursorAndRetention(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, &Options{ResultTTL: time.Minute, MaxHistory: 3})
		s, _, _, _ := m.Attach("a", HTTP)
		block := make(chan struct{})
		var ids []string
		for i := range 5 {
			run := func(ctx context.Context) any { return i }
			if i == 4 {
				run = func(ctx context.Context) any { <-block; return i }
			}
			c, _ := s.Start("observe", "page", run)
			ids = append(ids, c.ID)
			synctest.Wait()
		}
		// The count cap applies as each result is added: the oldest
		// finished one went when the fourth finished; the running one
		// stays whatever the cap.
		all := s.Commands(0, 100)
		if len(all) != 4 || all[3].Status != "pending" || all[0].CorrelationID != ids[1] {
			t.Fatalf("Commands = %+v", all)
		}
		if e, ok := s.Evicted(ids[0]); !ok || e.Reason != EvictedCount || !strings.Contains(e.Message, "3 most recent") {
			t.Fatalf("Evicted(%s) = %+v, %v", ids[0], e, ok)
		}
		if _, ok := s.Command(ids[0]); ok {
			t.Fatal("an evicted command is still listed")
		}
		after := s.Commands(3, 100)
		if len(after) != 2 || after[0].CorrelationID != ids[3] {
			t.Fatalf("Commands(after 3) = %+v", after)
		}
		if got := s.Commands(0, 2); len(got) != 2 {
			t.Fatalf("limit ignored: %d", len(got))
		}
		// Past ResultTTL every finished result goes at a sweep; the
		// running one stays.
		time.Sleep(time.Minute + 20*time.Second)
		synctest.Wait()
		left := s.Commands(0, 100)
		if len(left) != 1 || left[0].CorrelationID != ids[4] {
			t.Fatalf("after ResultTTL: %+v", left)
		}
		if e, _ := s.Evicted(ids[1]); e.Reason != EvictedExpired {
			t.Fatalf("Evicted(%s) = %+v", ids[1], e)
		}
		if n, b := m.kept(); n != 0 || b != 0 {
			t.Fatalf("kept %d results, %d bytes after expiry", n, b)
		}
		close(block)
	})
}

// TestByteCap: results are measured as they are added; past the byte cap
// the oldest finished ones, of any session, go first; the newest is kept
// even alone over the cap; running commands are never evicted; a closed
// session's results stop counting.
func TestByteCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		size := func(v any) int64 { return int64(len(v.(string))) }
		m, _ := newManager(t, &Options{MaxResultBytes: 100, Size: size})
		a, _, _, _ := m.Attach("a", HTTP)
		b, _, _, _ := m.Attach("b", Stdio)
		run := func(n int) func(context.Context) any {
			return func(context.Context) any { return strings.Repeat("x", n) }
		}
		block := make(chan struct{})
		running, _ := a.Start("observe", "page", func(context.Context) any { <-block; return strings.Repeat("y", 500) })
		a1, _ := a.Start("observe", "screenshot", run(40))
		synctest.Wait()
		b1, _ := b.Start("observe", "screenshot", run(40))
		synctest.Wait()
		if n, bytes := m.kept(); n != 2 || bytes != 80 {
			t.Fatalf("kept %d, %d bytes; want 2, 80", n, bytes)
		}
		a2, _ := a.Start("observe", "screenshot", run(30)) // 110 > 100: a1 goes
		synctest.Wait()
		if e, ok := a.Evicted(a1.ID); !ok || e.Reason != EvictedBytes || e.Bytes != 40 || !strings.Contains(e.Message, "across all sessions") {
			t.Fatalf("Evicted(a1) = %+v, %v", e, ok)
		}
		for _, c := range []*Command{b1, a2} {
			if _, ok := c.sess.Command(c.ID); !ok {
				t.Fatalf("%s evicted too early", c.What)
			}
		}
		big, _ := b.Start("observe", "screenshot", run(150)) // alone over the cap: kept, the rest goes
		synctest.Wait()
		if n, bytes := m.kept(); n != 1 || bytes != 150 {
			t.Fatalf("kept %d, %d bytes; want only the newest (150)", n, bytes)
		}
		if _, ok := b.Command(big.ID); !ok {
			t.Fatal("the newest result was evicted")
		}
		if _, ok := a.Command(running.ID); !ok {
			t.Fatal("a running command was evicted")
		}
		m.Close("b")
		if n, bytes := m.kept(); n != 0 || bytes != 0 {
			t.Fatalf("a closed session's results still count: %d, %d bytes", n, bytes)
		}
		close(block)
		synctest.Wait()
		if n, bytes := m.kept(); n != 1 || bytes != 500 {
			t.Fatalf("after the long command: kept %d, %d bytes", n, bytes)
		}
	})
}

func TestCloseCancelsCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, nil)
		s, _, _, _ := m.Attach("a", HTTP)
		c, _ := s.Start("observe", "page", func(ctx context.Context) any { <-ctx.Done(); return ctx.Err() })
		m.Close("a")
		<-c.Done()
		if v, _ := c.Result(); !errors.Is(v.(error), context.Canceled) {
			t.Fatalf("result %v, want context.Canceled", v)
		}
		if m.Get("a") != nil || s.Info().State != Closed {
			t.Fatal("closed session still kept")
		}
	})
}

func TestCommandBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, &Options{CommandTimeout: time.Second})
		s, _, _, _ := m.Attach("a", HTTP)
		c, _ := s.Start("observe", "page", func(ctx context.Context) any { <-ctx.Done(); return ctx.Err() })
		<-c.Done()
		if v, _ := c.Result(); !errors.Is(v.(error), context.DeadlineExceeded) {
			t.Fatalf("result %v, want DeadlineExceeded", v)
		}
	})
}

func TestManagerStopsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		m := New(ctx, nil)
		s, _, _, _ := m.Attach("a", Stdio)
		c, _ := s.Start("observe", "page", func(ctx context.Context) any { <-ctx.Done(); return "stopped" })
		cancel()
		m.Wait() // returns only once the sweeper and the command have ended
		if v, _ := c.Result(); v != "stopped" {
			t.Fatalf("command result %v", v)
		}
		if _, _, _, err := m.Attach("b", Stdio); !errors.Is(err, ErrStopped) {
			t.Fatalf("Attach after stop: %v", err)
		}
		if _, err := s.Start("observe", "page", func(context.Context) any { return nil }); !errors.Is(err, ErrStopped) {
			t.Fatalf("Start after stop: %v", err)
		}
		if _, err := Detached("x").Start("a", "b", func(context.Context) any { return nil }); !errors.Is(err, ErrStopped) {
			t.Fatalf("Detached Start: %v", err)
		}
		// A manager made after its context ended attaches nothing.
		late := New(ctx, nil)
		if _, _, _, err := late.Attach("c", Stdio); !errors.Is(err, ErrStopped) {
			t.Fatalf("Attach on a manager born stopped: %v", err)
		}
		late.Wait()
	})
}

func TestInfo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, _ := newManager(t, nil)
		s, _, _, _ := m.Attach("a", HTTP)
		s.SetClient(Client{Name: "claude", Version: "1"})
		t0 := time.Now()
		time.Sleep(time.Second)
		s.Touch()
		info := s.Info()
		if info.Client.Name != "claude" || info.Transport != HTTP || !info.Created.Equal(t0) || !info.LastSeen.Equal(t0.Add(time.Second)) {
			t.Fatalf("Info = %+v", info)
		}
	})
}

func TestPageWarning(t *testing.T) {
	m := New(t.Context(), nil)
	a, _, _, err := m.Attach("a", HTTP)
	if err != nil {
		t.Fatal(err)
	}
	b, _, _, _ := m.Attach("b", HTTP)
	if a.PageWarning() != "" {
		t.Error("a new session has a page warning")
	}
	a.SetPageWarning("the page contained instruction-like text")
	if a.PageWarning() == "" || b.PageWarning() != "" {
		t.Errorf("warnings: a %q, b %q", a.PageWarning(), b.PageWarning())
	}
}

// Issue 27, item 4: a session belongs to the client that made it. Its id
// alone attaches nothing: another credential, the other transport, or a
// stdio client without the resume key gets ErrNotYours, and the session
// stays as it was (still attached to its own client).
func TestSessionsBelongToTheirClient(t *testing.T) {
	m, _ := newManager(t, nil)
	mine := Binding{Principal: principalAgent, Key: NewKey()}
	s, gen, _, err := m.Claim("a", Stdio, mine)
	if err != nil {
		t.Fatal(err)
	}
	for name, try := range map[string]struct {
		t Transport
		b Binding
	}{
		"no key":                    {Stdio, Binding{Principal: principalAgent}},
		"another key":               {Stdio, Binding{Principal: principalAgent, Key: NewKey()}},
		"another credential":        {Stdio, Binding{Principal: "remote:x", Key: mine.Key}},
		"over HTTP":                 {HTTP, Binding{Principal: principalAgent}},
		"the daemon's own (no key)": {Stdio, Binding{}},
	} {
		if got, _, _, err := m.Claim("a", try.t, try.b); err != ErrNotYours || got != nil {
			t.Errorf("%s: Claim = %v, %v; want ErrNotYours", name, got, err)
		}
		if got, err := m.Lookup("a", try.t, try.b); err != ErrNotYours || got != nil {
			t.Errorf("%s: Lookup = %v, %v; want ErrNotYours", name, got, err)
		}
	}
	if st := s.Info().State; st != Ready {
		t.Fatalf("a refused claim changed the session: %s", st)
	}
	m.Detach("a", gen) // the owner's connection drops
	again, _, resumed, err := m.Claim("a", Stdio, mine)
	if err != nil || !resumed || again != s {
		t.Fatalf("the owner could not resume: %v %v", resumed, err)
	}
	h, _, _, _ := m.Claim("h", HTTP, Binding{Principal: "remote:r1", Remote: "devbox"})
	if got, err := m.Lookup("h", HTTP, Binding{Principal: principalAgent}); err != ErrNotYours || got != nil {
		t.Fatalf("the local agent credential looked up a remote agent's session: %v %v", got, err)
	}
	if got, err := m.Lookup("h", HTTP, Binding{Principal: "remote:r1"}); err != nil || got != h {
		t.Fatalf("the remote could not look up its own session: %v %v", got, err)
	}
	if n := m.EndPrincipal("remote:r1"); n != 1 || m.Get("h") != nil || m.Get("a") == nil {
		t.Fatalf("EndPrincipal ended %d; h=%v a=%v", n, m.Get("h"), m.Get("a"))
	}
}

// Issue 34, item 6: the daemon hears of every session that ends (to
// withdraw its pending approvals), not of those a stopping daemon keeps.
func TestEndedIsToldOfEverySessionThatEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ended []string
		ctx, stop := context.WithCancel(context.Background())
		m := New(ctx, &Options{TTL: time.Minute})
		m.OnEnd(func(id string) { ended = append(ended, id) })
		m.Attach("closed", Stdio)
		m.Close("closed")
		_, gen, _, _ := m.Attach("expires", Stdio)
		m.Detach("expires", gen)
		m.Attach("kept", Stdio)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		stop()
		m.Wait()
		if strings.Join(ended, ",") != "closed,expires" {
			t.Fatalf("Ended told %v, want closed then expires (never kept)", ended)
		}
	})
}

// principalAgent is the local agent credential's principal
// (creds.PrincipalAgent).
const principalAgent = "agent"
