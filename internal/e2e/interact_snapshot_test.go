package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestE2EInteractSnapshotOptions(t *testing.T) {
	x := startInteract(t, "interact-snapshot")
	none := x.call("observe", map[string]any{"what": "snapshot"})
	assert.Equal(t, "no_tab", none.code(), "a session without a tab is told to open one")

	tab := x.open("form.html")
	full := x.observe("snapshot", nil)
	t.Logf("full (%d bytes):\n%s", len(full.Text), full.Text)
	assert.Equal(t, float64(tab), full.Data["tab_id"])
	assert.Contains(t, full.Text, `heading "Order" [level=1]`)
	assert.Contains(t, full.Text, `combobox "Plan" [`)
	gen := full.Data["generation"].(float64)

	io := x.observe("snapshot", map[string]any{"interactive_only": true})
	assert.Less(t, len(io.Text), len(full.Text))
	assert.Equal(t, gen+1, io.Data["generation"], "every full snapshot is a new generation")

	cut := x.observe("snapshot", map[string]any{"limit": 5})
	assert.Equal(t, 5.0, cut.Data["shown"])
	assert.Contains(t, cut.Text, "more nodes; pass limit=")

	form := refOf(t, x.snap(nil), `form "Order"`)
	sub := x.snap(map[string]any{"ref": form, "depth": 2})
	assert.NotContains(t, sub, `heading "Order"`, "a subtree snapshot starts at its root")
	assert.Contains(t, sub, `textbox "Full name"`)
	sel := x.snap(map[string]any{"selector": "fieldset"})
	assert.Contains(t, sel, `radio "Phone"`)
	assert.NotContains(t, sel, `textbox "Full name"`)

	file := x.observe("snapshot", map[string]any{"to_file": true})
	path, _ := file.Data["file"].(string)
	require.NotEmpty(t, path, file.Text)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `combobox "Plan" [`)
	assert.True(t, strings.HasPrefix(path, x.Home), "snapshots go under the state directory")

	t.Run("screenshot of an element by ref", func(t *testing.T) {
		snap := x.snap(map[string]any{"interactive_only": true})
		shot := x.observe("screenshot", map[string]any{"ref": refOf(t, snap, `button "Place order"`)})
		var img *mcp.ImageContent
		for _, c := range shot.Raw.Content {
			if ic, ok := c.(*mcp.ImageContent); ok {
				img = ic
			}
		}
		require.NotNil(t, img, shot.Text)
		assert.NotEmpty(t, img.Data)
		x.act("navigate", map[string]any{"url": x.PageURL("pages/actions/keys.html")})
		stale := x.call("observe", map[string]any{"what": "screenshot", "ref": refOf(t, snap, `button "Place order"`)})
		assert.Equal(t, "stale_ref", stale.code(), stale.Text)
	})

	t.Run("another session's tab is refused", func(t *testing.T) {
		other := x.relay.client(t, "interact-other")
		for _, a := range []answer{
			other.call("observe", map[string]any{"what": "snapshot", "tab_id": tab}),
			other.call("interact", map[string]any{"what": "click", "selector": "#count", "tab_id": tab}),
			other.call("interact", map[string]any{"what": "get_text", "selector": "h1", "tab_id": tab}),
		} {
			assert.True(t, a.IsError)
			assert.Equal(t, "tab_not_owned", a.code(), a.Text)
		}
	})
}

// TestE2EInteractSnapshotWaitsForAction: a snapshot taken while an action
// runs on the tab waits for it (the tab's action lock), while another tab
// of the session acts meanwhile.
func TestE2EInteractSnapshotWaitsForAction(t *testing.T) {
	x := startInteract(t, "interact-lock")
	a := x.open("slow.html")
	b := x.open("slow.html")

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	type res struct {
		r   *mcp.CallToolResult
		err error
	}
	call := func(tool string, args map[string]any) chan res {
		ch := make(chan res, 1)
		go func() {
			r, err := x.cs.CallTool(ctx, callParams(tool, args))
			ch <- res{r, err}
		}()
		return ch
	}
	running := func(what string) bool {
		for _, c := range list(x.observe("pending_commands", nil), "commands") {
			if c["what"] == what && c["status"] == "pending" {
				return true
			}
		}
		return false
	}
	waitUntil := func(cond func() bool) {
		t.Helper()
		require.Eventually(t, cond, 15*time.Second, 20*time.Millisecond)
	}

	// The action on tab a marks, from inside the page, that it runs (tab
	// b reads the mark: localStorage is the origin's), then waits for tab
	// b's ping. A call shown as pending has not necessarily taken the tab
	// yet, so the snapshot is asked for only once the action holds it.
	wait := call("interact", map[string]any{"what": "execute_js", "tab_id": a, "timeout_ms": 30000, "script": `(async () => {
		const pinged = new Promise((r) => addEventListener('storage', (e) => { if (e.key === 'ping') r(); }));
		localStorage.setItem('held', '1');
		await pinged;
		return document.getElementById('pinged') ? 'after the ping' : 'no ping';
	})()`})
	waitUntil(func() bool {
		return strings.Contains(x.act("execute_js", map[string]any{"tab_id": b,
			"script": `localStorage.getItem('held') === '1' ? 'HELD' + 'NOW' : 'not yet'`}).Text, "HELDNOW")
	})
	snap := call("observe", map[string]any{"what": "snapshot", "tab_id": a, "timeout_ms": 30000})
	waitUntil(func() bool { return running("snapshot") })
	select {
	case r := <-snap:
		t.Fatalf("the snapshot did not wait for the action on its tab: %+v", r)
	default:
	}
	// Tab b acts while tab a is held: a storage event pings tab a.
	x.act("execute_js", map[string]any{"script": `localStorage.setItem('ping', String(Date.now()))`, "tab_id": b})
	w := <-wait
	require.NoError(t, w.err)
	require.False(t, w.r.IsError, "the action: %+v", w.r.Content)
	s := <-snap
	require.NoError(t, s.err)
	require.False(t, s.r.IsError)
	text := s.r.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "pinged", "the snapshot ran after the action it waited for")
}

// TestE2EInteractApprovalNamesTarget: a gated action's approval request
// names the element it would act on, and nothing runs before approval.
func TestE2EInteractApprovalNamesTarget(t *testing.T) {
	const policy = `{"version":1,"rules":[{"effect":"allow","class":"*","action":"interact.new_tab","origin":"*"},` +
		`{"effect":"allow","class":"*","action":"interact.execute_js","origin":"http://127.0.0.1:*"}]}`
	r := startRelay(t, ChainOptions{Policy: policy})
	x := &ia{relay: r, client: r.client(t, "interact-approval")}
	x.open("form.html")
	snap := x.snap(map[string]any{"interactive_only": true})
	a := x.call("interact", map[string]any{"what": "click", "ref": refOf(t, snap, `button "Place order"`), "timeout_ms": 1500})
	require.True(t, a.IsError)
	require.Equal(t, "approval_required", a.code(), a.Text)
	details, _ := a.Data["details"].(map[string]any)
	assert.Contains(t, details["target"], `click button "Place order" on tab`, "the prompt names the element")
	assert.Empty(t, js[string](x.client, `document.getElementById('result').textContent`), "nothing ran before approval")
}
