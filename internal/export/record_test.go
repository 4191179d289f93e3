package export

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecorderHoldsItsCaps fills the recorder past every cap: each
// session keeps its newest actions, calls and decisions in order, and the
// sessions recorded least recently go first.
func TestRecorderHoldsItsCaps(t *testing.T) {
	r := NewRecorder()
	for i := range MaxActions + 500 {
		r.Action("s", Action{Mode: fmt.Sprint(i)})
		r.Call("s", ToolCall{Mode: fmt.Sprint(i)})
		r.Decision("s", Decision{Action: fmt.Sprint(i)})
	}
	actions, calls, decisions := r.Snapshot("s")
	require.Len(t, actions, MaxActions)
	require.Len(t, calls, MaxCalls)
	require.Len(t, decisions, MaxDecisions)
	require.Equal(t, "500", actions[0].Mode, "the oldest kept")
	require.Equal(t, fmt.Sprint(MaxActions+499), actions[len(actions)-1].Mode, "the newest")
	require.Equal(t, MaxActions+500, actions[len(actions)-1].Seq)
	require.Equal(t, fmt.Sprint(MaxActions+500-MaxDecisions), decisions[0].Action)
	for i := 1; i < len(calls); i++ {
		require.Equal(t, fmt.Sprint(500+i), calls[i].Mode, "in order")
	}

	for i := range MaxSessions + 10 {
		r.Call(fmt.Sprint("other", i), ToolCall{})
	}
	for _, st := range r.Sizes() {
		require.False(t, st.Over(), "%s holds %d, cap %d", st.Name, st.Len, st.Cap)
	}
	a, _, _ := r.Snapshot("s")
	require.Nil(t, a, "the least recently recorded session went")
	require.Equal(t, MaxSessions, r.Sizes()[0].Len)
}

// TestRecorderForgetsAnEndedSession: a session that ends leaves nothing.
func TestRecorderForgetsAnEndedSession(t *testing.T) {
	r := NewRecorder()
	r.Action("s", Action{})
	r.Call("s", ToolCall{})
	r.Decision("s", Decision{})
	r.Forget("s")
	for _, st := range r.Sizes() {
		if st.Name != "export.ended_sessions" {
			require.Zero(t, st.Len, st.Name)
		}
	}
	require.Empty(t, r.order)
	// A late approval event of the ended session records nothing.
	r.Decision("s", Decision{Type: "expired"})
	require.Zero(t, r.Sizes()[0].Len)
	for i := range maxEnded + 10 {
		r.Forget(fmt.Sprint("x", i))
	}
	require.Len(t, r.ended, maxEnded)
}

// TestRecorderAppendsWithoutCopying: a full ring takes a new value
// without allocating (trimming a slice per append copied all of it).
func TestRecorderAppendsWithoutCopying(t *testing.T) {
	r := NewRecorder()
	for range MaxCalls {
		r.Call("s", ToolCall{})
	}
	allocs := testing.AllocsPerRun(100, func() { r.Call("s", ToolCall{Mode: "click"}) })
	require.Zero(t, allocs)
}
