package generate

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// call is an interact call as the dispatcher hands it to its watchers.
func call(t *testing.T, sess *session.Session, args string) *mcpserver.Call {
	t.Helper()
	tc, e := tools.Parse("interact", json.RawMessage(args))
	require.Nil(t, e, args)
	return &mcpserver.Call{Call: tc, Session: sess}
}

func testSession(t *testing.T) *session.Session {
	t.Helper()
	m := session.New(t.Context(), &session.Options{})
	s, _, _, err := m.Attach("s1", session.Stdio)
	require.NoError(t, err)
	return s
}

// record runs one call through the recorder as the dispatcher does, with
// the handler's answer.
func record(g *Generator, c *mcpserver.Call, v any, err error) {
	if g.Watches(c.Mode) {
		g.Begin(context.Background(), c)(v, err)
	}
}

// TestTableRecorderExporterAgree: for every interact mode, the table's
// replay form, the recorder and the exporter agree — the recorder records
// exactly the modes whose definition has a form, one action per call (one
// per step of a batch) under the mode's name, and a generated script
// replays each in its form (a comment for the forms that are kept but not
// replayed). A mode added to one of them only fails here, or the table
// does not build.
func TestTableRecorderExporterAgree(t *testing.T) {
	sess := testSession(t)
	tool, _ := tools.Get("interact")
	for _, m := range tool.Modes {
		t.Run(m.Name, func(t *testing.T) {
			g := New(Config{})
			ex, _ := json.Marshal(m.Example())
			c := call(t, sess, string(ex))
			require.Equal(t, m.Replay.Recorded(), g.Watches(m), "the recorder watches %s as its definition says", m.Key())
			result := map[string]any{"tab_id": 7, "target": `button "Go"`, "steps": []any{map[string]any{"ok": true, "target": `button "Go"`}}}
			record(g, c, result, nil)
			acts, calls, _ := g.rec.Snapshot(sess.ID())
			if !m.Replay.Recorded() {
				assert.Empty(t, acts)
				assert.Empty(t, calls)
				return
			}
			require.Len(t, calls, 1)
			want := []string{m.Name}
			if m.Replay == tools.ReplaySteps {
				want = want[:0]
				for _, st := range c.Args.Steps {
					want = append(want, st.What)
				}
			}
			require.Len(t, acts, len(want))
			for i, a := range acts {
				assert.Equal(t, want[i], a.Mode, "action %d", i)
				assert.True(t, a.OK, "action %d", i)
				a.Selector, a.URL = "#go", "http://127.0.0.1:1/"
				a.Fields = []export.Field{{Selector: "#n", Value: "Ada"}}
				script := export.Reproduction(export.Document{Replay: export.Replay{Actions: []export.Action{a}}})
				form := export.FormOf(a)
				if form == tools.ReplayComment {
					assert.Contains(t, script, "not replayed by this generator", "%s is kept but not replayed", a.Mode)
					assert.False(t, export.Replayable(a))
				} else {
					assert.NotContains(t, script, "not replayed", "the exporter has no form %q for %s", form, a.Mode)
					assert.True(t, export.Replayable(a), "%s replays", a.Mode)
				}
			}
		})
	}
}

// TestRecordedArgumentsAreTyped: what the agent sent is what the export
// replays — a double click is a double click, and a batch written with
// the older alias action records each step under its mode.
func TestRecordedArgumentsAreTyped(t *testing.T) {
	sess := testSession(t)
	g := New(Config{})
	record(g, call(t, sess, `{"what":"click","selector":"#b","click_count":2}`), map[string]any{"tab_id": 3, "target": `button "B"`}, nil)
	record(g, call(t, sess, `{"what":"batch","steps":[{"action":"type","selector":"#n","text":"Ada","clear":true},{"action":"click","selector":"#go","click_count":2}]}`),
		map[string]any{"tab_id": 3, "steps": []any{map[string]any{"ok": true}, map[string]any{"ok": true}}}, nil)
	// A batch that failed at its second step: the first ran and is kept.
	failed := &tools.Error{Code: "not_found", Message: "no #missing", Details: map[string]any{"tab_id": 3,
		"steps": []any{map[string]any{"ok": true, "target": `checkbox "News"`}, map[string]any{"ok": false}}}}
	record(g, call(t, sess, `{"what":"batch","steps":[{"what":"check","selector":"#news"},{"what":"click","selector":"#missing"}]}`), nil, failed)
	acts, _, _ := g.rec.Snapshot(sess.ID())
	require.Len(t, acts, 5)
	assert.Equal(t, 2, acts[0].Clicks)
	assert.Equal(t, []string{"click", "type", "click", "check", "click"}, []string{acts[0].Mode, acts[1].Mode, acts[2].Mode, acts[3].Mode, acts[4].Mode})
	assert.Equal(t, 2, acts[2].Clicks)
	assert.True(t, acts[3].OK, "the step before the failure ran")
	assert.False(t, acts[4].OK)
	script := export.Reproduction(export.Document{Replay: export.ReplayOf(acts, "", "", export.Viewport{})})
	assert.Contains(t, script, `await page.locator("#b").click({ clickCount: 2 });`)
	assert.Contains(t, script, `await page.locator("#n").fill("Ada");`)
	assert.Contains(t, script, `await page.locator("#go").click({ clickCount: 2 });`)
	assert.Contains(t, script, `await page.locator("#news").setChecked(true);`)
	assert.Equal(t, 1, strings.Count(script, "failed when recorded"))
}
