package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/watch"
)

// TestE2EAgentWatch turns agent_watch on in the real chain, makes the page
// throw and fail a request, and waits (bounded) for the envelopes: each
// carries the tab, its session and read-only context gathered for that
// session (observe error_bundles / network_waterfall), redacted; repeats
// of the same error are deduped.
func TestE2EAgentWatch(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "watch-e2e")
	tab := c.newTab(r.url("pages/export/todo.html"))
	w := r.Server.AgentWatch()
	require.NotNil(t, w)
	_, err := w.Configure(watch.Settings{Enabled: true, Events: []string{watch.Errors, watch.NetworkErrors}, RateLimitPerMin: 10, DedupeWindowSec: 300})
	require.NoError(t, err)

	// The watch reacts to what happens after it first saw the tab, so the
	// page misbehaves until both envelopes are there (bounded).
	find := func(trigger string) *watch.Envelope {
		for _, env := range w.Status().Recent {
			if env.Trigger == trigger && env.Tab == tab {
				return &env
			}
		}
		return nil
	}
	deadline := time.Now().Add(30 * time.Second)
	netFound := func() *watch.Envelope {
		for _, env := range w.Status().Recent {
			if env.Trigger == watch.NetworkErrors && strings.Contains(env.Summary, "missing-for-watch") {
				return &env
			}
		}
		return nil
	}
	for find(watch.Errors) == nil || netFound() == nil {
		require.True(t, time.Now().Before(deadline), "no envelopes within 30 s; status: %+v", w.Status())
		c.ok("interact", map[string]any{"what": "execute_js", "tab_id": tab,
			"script": "setTimeout(() => { throw new Error('watch-boom') }); fetch('/missing-for-watch').catch(() => {}); 1"})
		time.Sleep(300 * time.Millisecond)
	}
	errEnv, netEnv := find(watch.Errors), netFound()
	assert.Contains(t, errEnv.Summary, "watch-boom")
	assert.NotEmpty(t, errEnv.Session)
	assert.Contains(t, errEnv.URL, "pages/export/todo.html")
	assert.Contains(t, errEnv.Context["observe.error_bundles"], "watch-boom", "context gathered read-only for the tab's session")
	assert.Contains(t, netEnv.Summary, "/missing-for-watch")
	assert.Contains(t, netEnv.Summary, "HTTP 404")
	assert.True(t, strings.Contains(netEnv.Context["observe.network_waterfall"], "missing-for-watch"), netEnv.Context)
	assert.NotEmpty(t, errEnv.Redaction.PolicyVersion)
	st := w.Status()
	assert.Positive(t, st.Stats.Deduped, "repeats of a signal are deduped")
	assert.LessOrEqual(t, st.Stats.Fired, 3, "one per distinct signal (the error, the 404, the favicon's 404)")
}
