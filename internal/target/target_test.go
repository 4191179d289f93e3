package target

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// link answers every command with {} and records the methods.
type link struct {
	mu    sync.Mutex
	calls []string
}

func (l *link) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	raw, _ := json.Marshal(params)
	var p struct {
		Method string `json:"method"`
	}
	json.Unmarshal(raw, &p)
	l.calls = append(l.calls, method+" "+p.Method)
	return json.RawMessage(`{}`), nil
}

// trail is a listener that writes down what it is told, as name:…; it
// counts in a part of its own.
type trail struct {
	name string
	mu   *sync.Mutex
	log  *[]string
	err  error // Enable's answer
}

type counter struct {
	n      int
	closed *bool
}

func (c *counter) Close() { *c.closed = true }

var countPart = NewPart("test counter", func(*Target) *counter { return &counter{closed: new(bool)} })

func (l trail) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*l.log = append(*l.log, l.name+":"+s)
}

func (l trail) Event(t *Target, ev Event) {
	countPart.Of(t).n++
	l.add(ev.Method)
}
func (l trail) Attached(*Target) { l.add("attached") }
func (l trail) Closed(*Target)   { l.add("closed") }
func (l trail) Enable(context.Context, *Target) error {
	l.add("enable")
	return l.err
}

func newSet(t *testing.T, owned map[int]bool) (*Set, *[]string, *sync.Mutex) {
	t.Helper()
	var log []string
	var mu sync.Mutex
	s := NewSet(t.Context(), Config{Caller: &link{}, Owner: func(tab int) (string, bool) { return "s1", owned[tab] }})
	s.Listen(trail{name: "a", mu: &mu, log: &log}, trail{name: "b", mu: &mu, log: &log})
	return s, &log, &mu
}

func read(mu *sync.Mutex, log *[]string) []string {
	mu.Lock()
	defer mu.Unlock()
	out := slices.Clone(*log)
	*log = (*log)[:0]
	return out
}

// An event goes to its tab's target, to every listener in order, then to
// the waiters; a tab no session holds and no one asked for has no target,
// and its events go nowhere.
func TestEventsReachTheirTarget(t *testing.T) {
	s, log, mu := newSet(t, map[int]bool{1: true})
	waiting := s.Get(2).Session()
	ch, stop := waiting.Subscribe("Page.loadEventFired")
	defer stop()

	s.Event(1, "", "Page.loadEventFired", json.RawMessage(`{}`))
	s.Event(2, "", "Page.loadEventFired", json.RawMessage(`{}`))
	s.Event(3, "", "Page.loadEventFired", json.RawMessage(`{}`))
	assert.Equal(t, []string{"a:Page.loadEventFired", "b:Page.loadEventFired", "a:Page.loadEventFired", "b:Page.loadEventFired"}, read(mu, log))
	assert.Len(t, ch, 1, "tab 2's waiter got its event")
	_, ok := s.Lookup(3)
	assert.False(t, ok, "a tab no one holds got a target")
	one, _ := s.Lookup(1)
	assert.True(t, one.Owned())
	assert.Equal(t, 2, countPart.Of(one).n, "both listeners counted in the target's own part")
}

// A detach ends the waiters and the child sessions; an attach tells the
// listeners before any event of it. The target itself lives on.
func TestAttachAndDetach(t *testing.T) {
	s, log, mu := newSet(t, map[int]bool{1: true})
	tg := s.Get(1)
	s.Event(1, "", "Target.attachedToTarget", json.RawMessage(`{"sessionId":"S1","targetInfo":{"targetId":"F1","type":"iframe","title":"","url":"","attached":true,"canAccessOpener":false},"waitingForDebugger":false}`))
	sid, ok := tg.ChildOf("F1")
	require.True(t, ok)
	assert.Equal(t, "S1", sid)
	ch, stop := tg.Child("S1").Subscribe("Runtime.consoleAPICalled")
	defer stop()
	s.Detached(1)
	_, open := <-ch
	assert.False(t, open, "the waiter stopped with the detach")
	assert.Empty(t, tg.Children())
	read(mu, log)
	s.Attached(1)
	assert.Equal(t, []string{"a:attached", "b:attached"}, read(mu, log))
	assert.NoError(t, tg.Context().Err(), "a detach does not end the target")
}

// Close is the one end of a tab's state: its context, its waiters, every
// part (closed when it can be), and the listeners that keep state
// elsewhere are told. A later Get makes a new target.
func TestCloseEndsEverything(t *testing.T) {
	s, log, mu := newSet(t, map[int]bool{1: true})
	tg := s.Get(1)
	c := countPart.Of(tg)
	ch, stop := tg.Session().Subscribe("Page.loadEventFired")
	defer stop()
	read(mu, log)
	s.Close(1)
	assert.ErrorIs(t, tg.Context().Err(), context.Canceled)
	_, open := <-ch
	assert.False(t, open)
	assert.True(t, *c.closed, "the part was closed")
	assert.Equal(t, []string{"a:closed", "b:closed"}, read(mu, log))
	_, kept := countPart.Peek(tg)
	assert.False(t, kept)
	assert.NotSame(t, c, countPart.Of(tg), "a closed target keeps nothing")
	_, kept = countPart.Peek(tg)
	assert.False(t, kept)
	again := s.Get(1)
	assert.NotSame(t, tg, again)
	assert.NoError(t, again.Context().Err())
	s.Close(1)
	s.Close(1) // twice is once
}

// Enable runs the enablers in order and stops at the first error.
func TestEnableInOrder(t *testing.T) {
	var log []string
	var mu sync.Mutex
	s := NewSet(t.Context(), Config{Caller: &link{}})
	boom := errors.New("boom")
	s.Listen(trail{name: "a", mu: &mu, log: &log, err: boom}, trail{name: "b", mu: &mu, log: &log})
	assert.ErrorIs(t, s.Enable(t.Context(), s.Get(1)), boom)
	assert.Equal(t, []string{"a:enable"}, read(&mu, &log))
}

// The target's session sends through the link with the tab's id.
func TestSessionCallsThroughTheLink(t *testing.T) {
	l := &link{}
	s := NewSet(t.Context(), Config{Caller: l})
	require.NoError(t, s.Get(4).Child("S9").Call(t.Context(), "Runtime.enable", nil, nil))
	assert.Equal(t, []string{"cdp.send Runtime.enable"}, l.calls)
}
