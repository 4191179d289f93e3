package actions

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/target/targettest"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// fakeEngine is an engine over targets on a fake link: Chrome answers
// Runtime.evaluate with eval's answer and the frame tree with one frame.
func fakeEngine(t *testing.T, eval targettest.CDPFunc) (*Engine, *target.Set, *targettest.Link) {
	t.Helper()
	link := targettest.New()
	link.CDP["Page.getFrameTree"] = targettest.FrameTree("http://127.0.0.1/page")
	link.CDP["Runtime.evaluate"] = eval
	set := target.NewSet(t.Context(), target.Config{Caller: link})
	e := New(Config{Target: set.Get, Snapshots: snapshot.New(snapshot.Config{Target: set.Get}), MaxResult: 64,
		Redact: func(s string) (string, error) { return strings.ReplaceAll(s, "hunter2", "[REDACTED]"), nil }})
	return e, set, link
}

// value is a Runtime.evaluate answer returning v by value.
func value(v any) targettest.CDPFunc {
	return func(int, string, json.RawMessage) (any, error) {
		raw, _ := json.Marshal(v)
		typ := map[bool]string{true: "string", false: "number"}[strings.HasPrefix(string(raw), `"`)]
		return json.RawMessage(`{"result":{"type":"` + typ + `","value":` + string(raw) + `}}`), nil
	}
}

// execute_js through the target's session: the script is sent as given,
// its value comes back typed, a string result is redacted whole and then
// cut to MaxResult, and an exception is the agent's js_exception.
func TestExecuteJSOverAFakeTarget(t *testing.T) {
	e, _, link := fakeEngine(t, value(2))
	r, err := e.Run(t.Context(), 7, "execute_js", &Args{Script: "1+1"})
	require.NoError(t, err)
	assert.EqualValues(t, 2, r.Value)
	assert.Equal(t, 1, link.Count("Runtime.evaluate"))

	long := "token hunter2 " + strings.Repeat("x", 200)
	e, _, _ = fakeEngine(t, value(long))
	r, err = e.Run(t.Context(), 7, "execute_js", &Args{Script: "document.body.innerText"})
	require.NoError(t, err)
	s, _ := r.Value.(string)
	assert.True(t, strings.HasPrefix(s, "token [REDACTED] "), "redacted before the cut: %q", s)
	assert.LessOrEqual(t, len(s), 64+len("…"))
	assert.True(t, r.Truncated)

	e, _, _ = fakeEngine(t, func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"result":{"type":"object","subtype":"error"},"exceptionDetails":{"exceptionId":1,"text":"Uncaught","lineNumber":0,"columnNumber":6,
			"exception":{"type":"object","subtype":"error","className":"TypeError","description":"TypeError: x is not a function\n    at <anonymous>:1:7"}}}`), nil
	})
	_, err = e.Run(t.Context(), 7, "execute_js", &Args{Script: "x()"})
	var te *tools.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, CodeJSException, te.Code)
	assert.Contains(t, te.Message, "x is not a function")
}

// A batch runs its steps in order on one tab and stops at the first
// failure, whose error carries the steps that ran.
func TestBatchOverAFakeTarget(t *testing.T) {
	n := 0
	e, _, _ := fakeEngine(t, func(_ int, _ string, p json.RawMessage) (any, error) {
		n++
		if strings.Contains(string(p), "boom") {
			return nil, errors.New("cdp_error: Cannot find default execution context")
		}
		return value(n)(0, "", nil)
	})
	c, perr := tools.Parse("interact", json.RawMessage(`{"what":"batch","steps":[{"action":"execute_js","script":"1"},{"what":"execute_js","script":"2"},{"what":"execute_js","script":"boom"},{"what":"execute_js","script":"4"}]}`))
	require.Nil(t, perr)
	_, err := e.Run(t.Context(), 7, "batch", &c.Args)
	var te *tools.Error
	require.ErrorAs(t, err, &te)
	assert.Contains(t, te.Message, "step 3 of 4 (execute_js) failed")
	res, ok := te.Details.(*Result)
	require.True(t, ok, "the failed batch's details are its steps")
	require.Len(t, res.Steps, 3)
	assert.True(t, res.Steps[0].OK && res.Steps[1].OK && !res.Steps[2].OK)
	assert.Equal(t, 3, n, "the step after the failure never ran")
}

// One action at a time per tab, in arrival order; tabs do not wait for
// each other; a tab whose target closed (it left its session) keeps no
// queue: a new holder of the tab starts with a fresh one.
func TestQueuePerTarget(t *testing.T) {
	e, set, _ := fakeEngine(t, value(1))
	ctx := t.Context()
	unlock, err := e.Lock(ctx, 7)
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = e.Run(short, 7, "execute_js", &Args{Script: "1"})
	var te *tools.Error
	require.ErrorAs(t, err, &te, "the tab is held")
	assert.Equal(t, tools.CodeTimeout, te.Code)
	_, err = e.Run(ctx, 8, "execute_js", &Args{Script: "1"})
	require.NoError(t, err, "another tab does not wait")
	assert.Equal(t, 1, e.Queued(7))

	set.Close(7)
	assert.Equal(t, 0, e.Queued(7), "the closed target took its queue with it")
	_, err = e.Run(ctx, 7, "execute_js", &Args{Script: "1"})
	require.NoError(t, err)
	unlock() // the old holder lets go of a queue no one waits on
}
