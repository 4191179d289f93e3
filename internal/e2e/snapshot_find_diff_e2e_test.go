package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2ESnapshotFindDiff: snapshot search and snapshot diffs over MCP on
// the large bench page (~3,000 elements): a find answers the match under
// its parents with a ref a click can use at once; after the click a diff
// answers the one line that changed; both fit in 2 KiB.
func TestE2ESnapshotFindDiff(t *testing.T) {
	x := startInteract(t, "snapshot-find-diff")
	url := x.PageURL("pages/large.html")
	tab := x.newTab(url)
	head := func(gen int, note string) string {
		return fmt.Sprintf("tab %d snapshot %d (539 refs) of %s · %s\n", tab, gen, url, note)
	}

	found := x.observe("snapshot", map[string]any{"find": "Tool 40"})
	assert.True(t, strings.HasPrefix(found.Text, "Gasoline left out 1 passage(s) of page text no person can see (hidden_dropped).\n"),
		"the page's sr-only paragraph is left out and said so: %s", found.Text)
	assert.Equal(t, head(1, "find \"Tool 40\": 1 of 844 lines match")+
		"main\n region \"Tools\" [e429]\n  list\n   button \"Tool 40\" [e470]\n", body(t, found))
	assert.Equal(t, 1.0, found.Data["matches"])
	assert.LessOrEqual(t, answerBytes(t, found), 2048)

	x.act("click", map[string]any{"ref": "e470"})
	assert.Equal(t, "true", js[string](x.client, `document.querySelectorAll('.tool')[39].getAttribute('aria-pressed')`))

	changed := x.observe("snapshot", map[string]any{"diff": true})
	assert.Equal(t, head(2, "diff since snapshot 1: 1 changed, 0 added, 0 removed")+
		"@ main > region \"Tools\" [e429] > list\n"+
		"~ button \"Tool 40\" [pressed] [focused] [e470]\n"+
		"  was: button \"Tool 40\" [e470]\n", body(t, changed))
	assert.Equal(t, map[string]any{"since": 1.0, "changed": 1.0, "added": 0.0, "removed": 0.0}, changed.Data["diff"])
	assert.LessOrEqual(t, answerBytes(t, changed), 2048)

	same := x.observe("snapshot", map[string]any{"diff": true})
	assert.Equal(t, head(3, "diff since snapshot 2: 0 changed, 0 added, 0 removed")+"no change\n", body(t, same))

	t.Run("role queries", func(t *testing.T) {
		r := x.observe("snapshot", map[string]any{"find": `role=button[name="Tool 4"]`})
		assert.True(t, strings.HasSuffix(body(t, r), "\nmain\n region \"Tools\" [e429]\n  list\n   button \"Tool 4\" [e434]\n"), r.Text)
		r = x.observe("snapshot", map[string]any{"find": `role=checkbox`})
		assert.True(t, strings.HasSuffix(body(t, r), "\nmain\n region \"Recent orders\" [e83]\n  checkbox \"Only mine\" [e87]\n"+
			" region \"Newsletter\" [e491]\n  checkbox \"I accept the terms\" [e494]\n"), r.Text)
		assert.Equal(t, 2.0, r.Data["matches"])
	})

	t.Run("the diff follows the session's own snapshots", func(t *testing.T) {
		other := x.relay.client(t, "snapshot-diff-other")
		a := other.call("observe", map[string]any{"what": "snapshot", "diff": true, "tab_id": tab})
		assert.Equal(t, "tab_not_owned", a.code(), a.Text)

		x.act("click", map[string]any{"ref": "e494"})
		r := x.observe("snapshot", map[string]any{"diff": true})
		assert.Contains(t, r.Text, "~ checkbox \"I accept the terms\" [checked] [focused] [e494]\n  was: checkbox \"I accept the terms\" [e494]\n")
		assert.Contains(t, r.Text, "~ button \"Tool 40\" [pressed] [e470]\n  was: button \"Tool 40\" [pressed] [focused] [e470]\n", "focus moved")
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, args := range []map[string]any{
			{"find": "x", "diff": true},
			{"diff": true, "interactive_only": true},
			{"diff": true, "ref": "e429"},
			{"find": `role=button[label="x"]`},
			{"find": "  "},
		} {
			args["what"] = "snapshot"
			a := x.call("observe", args)
			assert.Equal(t, "invalid_argument", a.code(), "%v: %s", args, a.Text)
		}
	})

	t.Run("after a navigation, the whole snapshot", func(t *testing.T) {
		x.act("navigate", map[string]any{"url": url + "?again"})
		r := x.observe("snapshot", map[string]any{"diff": true})
		assert.Contains(t, strings.SplitN(body(t, r), "\n", 2)[0], "the tab navigated since snapshot")
		assert.True(t, strings.Contains(body(t, r), "\n   button \"Tool 40\" ["), "the whole snapshot has the tools")
	})
}

// body is answer.Page, checked to come from a fence, with the line break
// the fence's own line takes.
func body(t *testing.T, a answer) string {
	t.Helper()
	require.NotEqual(t, a.Text, a.Page, "page text is fenced: %s", a.Text)
	return a.Page + "\n"
}

// answerBytes is the size of an answer as the client receives it: the JSON
// of the tool result.
func answerBytes(t *testing.T, a answer) int {
	t.Helper()
	b, err := json.Marshal(a.Raw)
	require.NoError(t, err)
	return len(b)
}
