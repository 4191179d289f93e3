package interact

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target/targettest"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// fixture is the interact tool served by an MCP server whose gate lets
// everything through, over a tab manager on a fake extension link.
type fixture struct {
	t    *testing.T
	link *targettest.Link
	tabs *tabs.Manager
	m    *mcpserver.Server
	sess *session.Session

	mu      sync.Mutex
	scripts []string // the expressions Runtime.evaluate was sent
}

type noRedaction struct{}

func (noRedaction) Text(_, s string) (string, error)        { return s, nil }
func (noRedaction) JSON(_ string, b []byte) ([]byte, error) { return b, nil }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, link: targettest.New()}
	next := 10
	f.link.Methods["tabs.create"] = func(json.RawMessage) (any, error) {
		next++
		return json.RawMessage(fmt.Sprintf(`{"tab":{"id":%d,"url":"about:blank","group_id":-1}}`, next)), nil
	}
	f.link.Methods["tabs.group"] = func(json.RawMessage) (any, error) { return map[string]int{"group_id": 5}, nil }
	f.link.Methods["tabs.close"] = func(json.RawMessage) (any, error) { return map[string]any{}, nil }
	f.link.Methods["tabs.get"] = func(p json.RawMessage) (any, error) {
		var q struct {
			TabID int `json:"tab_id"`
		}
		json.Unmarshal(p, &q)
		return json.RawMessage(fmt.Sprintf(`{"tab":{"id":%d,"url":"http://127.0.0.1/page","title":"Page","group_id":5}}`, q.TabID)), nil
	}
	f.link.CDP["Page.getFrameTree"] = targettest.FrameTree("http://127.0.0.1/page")
	f.link.CDP["Runtime.evaluate"] = func(_ int, _ string, p json.RawMessage) (any, error) {
		var ev struct{ Expression string }
		json.Unmarshal(p, &ev)
		f.mu.Lock()
		f.scripts = append(f.scripts, ev.Expression)
		f.mu.Unlock()
		return json.RawMessage(`{"result":{"type":"number","value":2}}`), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.tabs = tabs.New(ctx, tabs.Config{Link: f.link})
	store, err := capture.NewStore(nil)
	require.NoError(t, err)
	egress := &redact.Gateway{Engine: func() (*redact.Engine, error) { return redact.New(redact.DefaultPolicy()) }}
	x := New(Config{Tabs: f.tabs, Link: f.link, Capture: store, Dir: t.TempDir(), Egress: egress})
	f.tabs.Targets().Listen(x)
	f.m, err = mcpserver.New(ctx, &mcpserver.Options{Version: "test", Redact: targettest.NoRedaction{},
		Gate: func(context.Context, *mcpserver.Call) *tools.Error { return nil }})
	require.NoError(t, err)
	x.Register(f.m)
	f.sess, _, _, err = f.m.SessionManager().Attach("s1", session.Stdio)
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); f.m.Wait(); f.tabs.Wait() })
	return f
}

// call makes one interact call as an agent would.
func (f *fixture) call(args string) *mcp.CallToolResult {
	f.t.Helper()
	res, err := f.m.CallTool(f.t.Context(), f.sess, "interact", json.RawMessage(args))
	require.NoError(f.t, err)
	return res
}

func text(res *mcp.CallToolResult) string { return mcpserver.ToolText(res) }

// The interact modes over a fake link: a new tab is opened and grouped,
// execute_js's typed script reaches the tab's session, a batch with a
// sensitive step is refused even when the policy let it past the gate,
// and closing the tab closes its target.
func TestInteractOverAFakeLink(t *testing.T) {
	f := newFixture(t)
	res := f.call(`{"what":"new_tab"}`)
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "opened tab 11")
	assert.Equal(t, 1, f.link.Count("tabs.group"))

	res = f.call(`{"what":"execute_js","script":"1+1"}`)
	require.False(t, res.IsError, text(res))
	f.mu.Lock()
	assert.Contains(t, f.scripts, "1+1", "the typed script reached the tab")
	f.mu.Unlock()
	assert.Contains(t, text(res), "2")

	res = f.call(`{"what":"batch","steps":[{"what":"execute_js","script":"1"}]}`)
	require.True(t, res.IsError)
	assert.Contains(t, text(res), "sensitive and cannot run inside a batch")

	_, held := f.tabs.LookupTarget(11)
	require.True(t, held)
	res = f.call(`{"what":"close_tab","tab_id":11}`)
	require.False(t, res.IsError, text(res))
	assert.Equal(t, 1, f.link.Count("tabs.close"))
	_, held = f.tabs.LookupTarget(11)
	assert.False(t, held, "the closed tab's target went with it")
}

// Every interact mode of the table is served, by the engine or a handler
// of its own.
func TestEveryInteractModeServed(t *testing.T) {
	f := newFixture(t)
	res, err := f.m.CallTool(t.Context(), f.sess, "configure", json.RawMessage(`{"what":"describe_capabilities","tool":"interact"}`))
	require.NoError(t, err)
	var brief tools.ToolBrief
	require.NoError(t, json.Unmarshal([]byte(text(res)), &brief))
	elsewhere := map[string]bool{
		"call_page_tool": true, // internal/pagetools
		"emulate":        true, // internal/devtools
		"route":          true,
		"unroute":        true,
		"plan":           true, // internal/safety
	}
	for _, m := range brief.Modes {
		if elsewhere[m.What] {
			continue
		}
		assert.True(t, m.Available, "interact %s is not served", m.What)
	}
	assert.NotEmpty(t, brief.Modes)
}
