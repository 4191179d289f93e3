package generate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target/targettest"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

type noRedaction struct{}

func (noRedaction) Text(_, s string) (string, error)        { return s, nil }
func (noRedaction) JSON(_ string, b []byte) ([]byte, error) { return b, nil }

// TestGenerateThroughTheDispatcher: interact calls made through the
// dispatcher (their handler here answers as the engine does) are recorded
// by the Generator, which watches the recorded modes; generate
// reproduction and test then replay them — a double click as one, a batch
// written with the action alias step by step — reading the tab's viewport
// through its target's session.
func TestGenerateThroughTheDispatcher(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	link := targettest.New()
	link.CDP["Runtime.evaluate"] = func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"result":{"type":"string","value":"1280x720"}}`), nil
	}
	tm := tabs.New(ctx, tabs.Config{Link: link})
	store, err := capture.NewStore(nil)
	require.NoError(t, err)
	m, err := mcpserver.New(ctx, &mcpserver.Options{Version: "test", Redact: targettest.NoRedaction{},
		Gate: func(context.Context, *mcpserver.Call) *tools.Error { return nil }})
	require.NoError(t, err)
	t.Cleanup(func() { cancel(); m.Wait(); tm.Wait() })
	g := New(Config{Sessions: m.SessionManager().Get, Tabs: tm, Store: store, Dir: t.TempDir(), Version: "test",
		Egress:        &redact.Gateway{Engine: func() (*redact.Engine, error) { return redact.New(redact.DefaultPolicy()) }},
		PolicyVersion: func() string { return "1" }, Approvals: &approval.Engine{}, Noise: noNoise{}})
	g.Register(m)
	engine := func(_ context.Context, c *mcpserver.Call) (any, error) {
		res := map[string]any{"action": c.Mode.Name, "tab_id": 7, "target": `button "Star"`}
		if c.Mode.Steps {
			steps := []any{}
			for range c.Args.Steps {
				steps = append(steps, map[string]any{"ok": true})
			}
			res["steps"] = steps
		}
		return res, nil
	}
	m.Handle("interact", "click", engine)
	m.Handle("interact", "batch", engine)
	m.Handle("interact", "get_text", engine) // read-only: not recorded

	sess, _, _, err := m.SessionManager().Attach("s1", session.Stdio)
	require.NoError(t, err)
	tm.Registry().Own(sess.ID(), 7)
	call := func(tool, args string) map[string]any {
		t.Helper()
		res, err := m.CallTool(t.Context(), sess, tool, json.RawMessage(args))
		require.NoError(t, err)
		require.False(t, res.IsError, mcpserver.ToolText(res))
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		require.NoError(t, json.Unmarshal(raw, &out))
		return out
	}
	call("interact", `{"what":"click","selector":"#star","click_count":2}`)
	call("interact", `{"what":"get_text","selector":"h1"}`)
	call("interact", `{"what":"batch","steps":[{"action":"type","selector":"#n","text":"Ada","clear":true},{"action":"select","selector":"#p","value":"high"}]}`)

	repro := call("generate", `{"what":"reproduction","tab_id":7}`)
	script, _ := repro["content"].(string)
	assert.EqualValues(t, 3, repro["actions"], "the read is not recorded: %s", script)
	assert.EqualValues(t, 3, repro["replayable"])
	assert.Contains(t, script, `await page.locator("#star").click({ clickCount: 2 });`)
	assert.Contains(t, script, `await page.locator("#n").fill("Ada");`)
	assert.Contains(t, script, `await page.locator("#p").selectOption("high");`)
	assert.Contains(t, script, "const viewport = { width: 1280, height: 720 };", "read through the tab's target")

	spec, _ := call("generate", `{"what":"test","tab_id":7,"name":"stars"}`)["content"].(string)
	assert.Contains(t, spec, `test("stars"`)
	assert.Contains(t, spec, `await expect(page.locator("#p")).toHaveValue("high");`)
}

type noNoise struct{}

func (noNoise) Hide(string, string) bool { return false }
