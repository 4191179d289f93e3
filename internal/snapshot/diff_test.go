package snapshot

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiff(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = toolsPage
	s := newTestSnapshotter(f)
	take := func(o Options) *Result {
		t.Helper()
		o.Session = "s1"
		r, err := s.Take(ctx, tabID, o)
		require.NoError(t, err)
		return r
	}

	r := take(Options{Diff: true})
	assert.Equal(t, "no previous snapshot of this tab in this session: the whole snapshot", r.Note)
	assert.Nil(t, r.Diff)
	assert.True(t, strings.HasPrefix(r.Text, "main\n region \"Tools\" [e1]\n"), r.Text)

	r = take(Options{Diff: true})
	assert.Equal(t, "no change\n", r.Text)
	assert.Equal(t, &DiffStats{Since: 1}, r.Diff)

	// A button toggled, a status appeared, a link went away.
	f.records[""] = strings.Replace(strings.Replace(strings.Replace(toolsPage,
		"4\tbutton\tTool 40\tpressed\t3\t", "4\tbutton\tTool 40\t\t3\t", 1),
		"2\ttext\t\t\t0\tSaved twice", "2\ttext\t\t\t0\tSaved three times\n2\tstatus\t\t\t0\tAll saved", 1),
		"3\tlistitem\t\t\t0\t\n4\tlink\tTool 40 manual\t\t4\t\n", "", 1)
	r = take(Options{Diff: true})
	assert.Equal(t, `@ main > region "Tools" [e1] > list
~ button "Tool 40" [e3]
  was: button "Tool 40" [pressed] [e3]
- link "Tool 40 manual" [e4]
@ main > form "Sign up" [e7]
~ text: Saved three times
  was: text: Saved twice
+ status: All saved
`, r.Text)
	assert.Equal(t, &DiffStats{Since: 2, Changed: 2, Added: 1, Removed: 1}, r.Diff)
	assert.Equal(t, "diff since snapshot 2: 2 changed, 1 added, 1 removed", r.Note)

	// Another session has its own previous snapshot.
	o, err := s.Take(ctx, tabID, Options{Diff: true, Session: "s2"})
	require.NoError(t, err)
	assert.Nil(t, o.Diff)

	// After a navigation, the whole snapshot.
	s.Invalidate(tabID)
	r = take(Options{Diff: true})
	assert.Equal(t, "the tab navigated since snapshot 3: the whole snapshot", r.Note)

	// Most of the page changed: the whole snapshot says more.
	f.records[""] = rec(`0|main|||0|`, `1|button|A||20|`, `1|button|B||21|`, `1|button|C||22|`)
	r = take(Options{Diff: true})
	assert.Equal(t, "most of the page changed since snapshot 5: the whole snapshot", r.Note)
	assert.Equal(t, "main\n button \"A\" [e20]\n button \"B\" [e21]\n button \"C\" [e22]\n", r.Text)

	// Any full snapshot of the session is the next diff's base; a tab
	// that closed is forgotten.
	take(Options{InteractiveOnly: true})
	r = take(Options{Diff: true})
	assert.Equal(t, "no change\n", r.Text)
	s.Forget(tabID)
	r = take(Options{Diff: true})
	assert.Nil(t, r.Diff)
}

func TestDiffAddedSubtreeKeepsIndentation(t *testing.T) {
	old := mustLines(t, rec(`0|main|||0|`, `1|button|Open||1|`))
	now := mustLines(t, rec(`0|main|||0|`, `1|button|Open|expanded|1|`, `1|dialog|Confirm||2|`, `2|button|OK||3|`, `2|button|Cancel||4|`))
	var b strings.Builder
	st := writeDiff(&b, diffLines(old, now), old, now)
	assert.Equal(t, `@ main
~ button "Open" [expanded] [e1]
  was: button "Open" [e1]
+ dialog "Confirm" [e2]
+  button "OK" [e3]
+  button "Cancel" [e4]
`, b.String())
	assert.Equal(t, DiffStats{Changed: 1, Added: 3}, st)
}

func TestHistoryIsBounded(t *testing.T) {
	h := newTabRefs()
	for i := range maxHistory + 10 {
		h.swapPrev(fmt.Sprint("s", i), &kept{gen: i, used: time.Unix(int64(i), 0)})
	}
	assert.Len(t, h.prev, maxHistory)
	assert.NotContains(t, h.prev, "s9", "the least recently used go first")
	assert.Contains(t, h.prev, "s10")
}

func mustLines(t *testing.T, records string) []line {
	t.Helper()
	ls, _ := lines(mustParse(t, records), Options{})
	return ls
}
