package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
)

// owner is an MCP session as the tab manager sees it.
type owner struct {
	id   string
	done chan struct{}
}

func (o owner) ID() string            { return o.id }
func (o owner) Done() <-chan struct{} { return o.done }

// TestE2EActionCaptureWired runs actions on a tab the tab manager opened
// for a session, with the engine reading the daemon's capture buffers: the
// way the dispatcher wires it.
func TestE2EActionCaptureWired(t *testing.T) {
	f := newActFixture(t)
	eng := actions.New(actions.Config{Target: f.c.Server.Target, Snapshots: f.snap, Capture: f.c.Server.Capture()})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	api := slowAPI(t)
	o := owner{id: "sess-actions", done: make(chan struct{})}
	defer close(o.done)
	tb, _, err := f.c.Server.Tabs().Open(ctx, o, tabs.Req{Client: "e2e", URL: f.c.PageURL("pages/actions/slow.html?api=" + api.URL + "/slow?ms=600"), Wait: "load"})
	require.NoError(t, err)
	tab := tb.ID
	s := f.c.Server.CDP(tab)

	r, err := eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Load data")})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.Equal(t, 1, r.Changes.InFlight, "the late fetch is in flight when the click answers")

	r, err = eng.WaitFor(ctx, tab, actions.WaitArgs{NetworkIdle: true, IdleMS: 200})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.Equal(t, "slow data", read[string](t, ctx, s, `document.getElementById('data').textContent`), "network idle came after the fetch")

	r, err = eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `console.error('boom from the page'); fetch('` + api.URL + `/fail'); 1`})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.Contains(t, strings.Join(r.Changes.Errors, "\n"), "boom from the page")
	r, err = eng.WaitFor(ctx, tab, actions.WaitArgs{NetworkIdle: true, IdleMS: 100})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.Contains(t, strings.Join(r.Changes.FailedRequests, "\n"), "/fail → 500", "the failed request is reported by the action it finished in")

	r, err = eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#late")})
	require.NoError(t, err)
	assert.Empty(t, r.Changes.Errors, "errors are reported once")

	t.Run("a dialog seen by capture blocks other actions", func(t *testing.T) {
		r, err := eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `confirm('Proceed?')`})
		require.NoError(t, err)
		require.Len(t, r.Changes.Dialogs, 1)
		_, err = eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#late")})
		assert.Equal(t, actions.CodeDialogOpen, codeOf(err))
		r, err = eng.HandleDialog(ctx, tab, actions.DialogArgs{Accept: true})
		require.NoError(t, err)
		assert.Equal(t, `accepted the confirm dialog "Proceed?"`, r.Message)
		var cs *cdp.Session = s
		assert.Equal(t, "Actions: slow", read[string](t, ctx, cs, `document.title`))
	})
}
