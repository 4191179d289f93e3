package snapshot

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolsPage is a small page: a toolbar of tools in a region, a table row and a
// form.
var toolsPage = rec(
	`0|main|||0|`,
	`1|region|Tools||1|`,
	`2|list|||0|`,
	`3|listitem|||0|`, `4|button|Tool 4||2|`,
	`3|listitem|||0|`, `4|button|Tool 40|pressed|3|`,
	`3|listitem|||0|`, `4|link|Tool 40 manual||4|`,
	`1|table|Orders||5|`,
	`2|row|||0|`, `3|cell|#1||0|`, `3|cell|Ada|nfc|0|`, `4|link|Ada||6|`,
	`1|form|Sign up||7|`,
	`2|textbox|Email||8|ada@example.com`,
	`2|button|Save||9|`,
	`2|text|||0|Saved twice`,
)

func TestFind(t *testing.T) {
	tests := []struct {
		find, want string
		matches    int
	}{
		{"Tool 40", "main\n region \"Tools\" [e1]\n  list\n   button \"Tool 40\" [pressed] [e3]\n   link \"Tool 40 manual\" [e4]\n", 2},
		{`"Tool 40"`, "main\n region \"Tools\" [e1]\n  list\n   button \"Tool 40\" [pressed] [e3]\n", 1},
		{`text="Tool 40"`, "main\n region \"Tools\" [e1]\n  list\n   button \"Tool 40\" [pressed] [e3]\n", 1},
		{"tool  40 MANUAL", "main\n region \"Tools\" [e1]\n  list\n   link \"Tool 40 manual\" [e4]\n", 1},
		{`role=button[name="Tool 4"]`, "main\n region \"Tools\" [e1]\n  list\n   button \"Tool 4\" [e2]\n", 1},
		{`role=button[name="tool 4" i]`, "main\n region \"Tools\" [e1]\n  list\n   button \"Tool 4\" [e2]\n   button \"Tool 40\" [pressed] [e3]\n", 2},
		{`role=link[name=ada]`, "main\n table \"Orders\" [e5]\n  row: #1 | link \"Ada\" [e6]\n", 1},
		{"ada@example", "main\n form \"Sign up\" [e7]\n  textbox \"Email\" [e8]: ada@example.com\n", 1},
		{"saved", "main\n form \"Sign up\" [e7]\n  text: Saved twice\n", 1},
		{"role=textbox", "main\n form \"Sign up\" [e7]\n  textbox \"Email\" [e8]: ada@example.com\n", 1},
		{"nowhere", "no line matches; look for a shorter text, or take the whole snapshot\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.find, func(t *testing.T) {
			q, err := parseFind(tc.find)
			require.NoError(t, err)
			var r Result
			ls, _ := lines(mustParse(t, toolsPage), Options{})
			findText(&r, ls, q, 0)
			assert.Equal(t, tc.want, r.Text)
			assert.Equal(t, tc.matches, r.Matches)
		})
	}
}

func TestFindLimit(t *testing.T) {
	q, err := parseFind("tool 4")
	require.NoError(t, err)
	var r Result
	ls, _ := lines(mustParse(t, toolsPage), Options{})
	findText(&r, ls, q, 1)
	assert.Equal(t, "main\n region \"Tools\" [e1]\n  list\n   button \"Tool 4\" [e2]\n… 2 more matches; pass limit=3\n", r.Text)
	assert.Equal(t, `find "tool 4": 3 of 12 lines match`, r.Note)
}

func TestParseFindErrors(t *testing.T) {
	for _, bad := range []string{"", "  ", `""`, "role=", `role=button[label="x"]`, `role=button[name="x"`, `"open`} {
		_, err := parseFind(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// TestFindRefsAreCurrent: a find is a full snapshot, so the refs it shows
// resolve at once.
func TestFindRefsAreCurrent(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = toolsPage
	f.backend[3] = 103
	s := newTestSnapshotter(f)
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	r, err := s.Take(ctx, tabID, Options{Find: `role=button[name="Tool 40"]`})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Generation)
	assert.Equal(t, 1, r.Matches)
	got, err := s.Resolve(ctx, tabID, "e3")
	require.NoError(t, err)
	assert.Equal(t, `button "Tool 40"`, got.Desc)
}

func TestOptionsCheck(t *testing.T) {
	for _, o := range []Options{
		{Find: "x", Diff: true, Session: "s"},
		{Diff: true, Root: "e1", Session: "s"},
		{Diff: true, InteractiveOnly: true, Session: "s"},
		{Diff: true},
		{Find: "x", Depth: 2},
		{Limit: -1},
	} {
		_, err := newTestSnapshotter(newFakeTab()).Take(context.Background(), tabID, o)
		assert.Error(t, err, "%+v", o)
	}
}
