package mcpserver

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestCallToolAndTrigger: in-daemon calls take the dispatcher's path
// (gate, audit), and a trigger never runs a mutating mode — not even when
// the gate and the trigger check would allow it.
func TestCallToolAndTrigger(t *testing.T) {
	var gated, audited atomic.Int32
	f := newFixture(t, &Options{
		Gate: func(context.Context, *Call) *tools.Error { gated.Add(1); return nil }, // allow everything
		Audit: func(string, string, tools.Class, time.Duration, bool) error {
			audited.Add(1)
			return nil
		},
	})
	var clicks, pages atomic.Int32
	f.s.Handle("interact", "click", func(context.Context, *Call) (any, error) { clicks.Add(1); return map[string]any{"ok": true}, nil })
	f.s.Handle("observe", "page", func(context.Context, *Call) (any, error) { pages.Add(1); return map[string]any{"url": "x"}, nil })
	sess, _, _, err := f.s.SessionManager().Attach("panel-test", session.Transport("panel"))
	require.NoError(t, err)
	ctx := context.Background()

	res, err := f.s.CallTool(ctx, sess, "interact", json.RawMessage(`{"what":"click","selector":"#go"}`))
	require.NoError(t, err)
	assert.False(t, res.IsError, ToolText(res))
	assert.EqualValues(t, 1, gated.Load(), "the gate saw the panel's mutating call")
	assert.EqualValues(t, 1, clicks.Load())

	allow := func(context.Context, *Call) *tools.Error { return nil }
	res, err = f.s.CallTrigger(ctx, sess, "interact", json.RawMessage(`{"what":"click","selector":"#go"}`), allow)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, ToolText(res), "automatic triggers only run read-only modes")
	assert.EqualValues(t, 1, clicks.Load(), "the trigger's click never ran")

	res, _ = f.s.CallTrigger(ctx, sess, "observe", json.RawMessage(`{"what":"page"}`), allow)
	assert.False(t, res.IsError)
	res, _ = f.s.CallTrigger(ctx, sess, "observe", json.RawMessage(`{"what":"page"}`), func(context.Context, *Call) *tools.Error {
		return tools.Errorf(CodeTriggerRefused, "policy says no")
	})
	assert.True(t, res.IsError)
	res, _ = f.s.CallTrigger(ctx, sess, "observe", json.RawMessage(`{"what":"page"}`), nil)
	assert.True(t, res.IsError, "no check: fail closed")
	assert.EqualValues(t, 1, pages.Load())
	assert.EqualValues(t, 2, audited.Load(), "the two calls that reached the dispatcher were audited")

	_, err = f.s.CallTool(ctx, nil, "observe", nil)
	assert.ErrorIs(t, err, ErrNoSession)

	var trail []string
	f.s.Watch(keyWatcher{"observe.page", "A", &trail})
	f.s.Watch(keyWatcher{"observe.page", "B", &trail})
	f.s.Watch(keyWatcher{"observe.vitals", "C", &trail})
	res, _ = f.s.CallTool(ctx, sess, "observe", json.RawMessage(`{"what":"page"}`))
	assert.False(t, res.IsError)
	assert.Equal(t, []string{"A begin", "B begin", "B end ok", "A end ok"}, trail, "watchers compose in the order added, around the handler")
	assert.EqualValues(t, 2, pages.Load())
}

// keyWatcher records the calls of one mode.
type keyWatcher struct {
	key, name string
	trail     *[]string
}

func (w keyWatcher) Watches(m *tools.Mode) bool { return m.Key() == w.key }

func (w keyWatcher) Begin(_ context.Context, c *Call) func(any, error) {
	*w.trail = append(*w.trail, w.name+" begin")
	return func(_ any, err error) {
		end := w.name + " end ok"
		if err != nil {
			end = w.name + " end " + err.Error()
		}
		*w.trail = append(*w.trail, end)
	}
}
