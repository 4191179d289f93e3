package snapshot

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tabID = 7

func TestTakeAndResolve(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|main|||0|`, `1|button|Save||1|`, `1|link|Help||2|`)
	f.backend[1], f.backend[2] = 101, 102
	s := newTestSnapshotter(f)

	r, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	assert.Equal(t, "main\n button \"Save\" [e1]\n link \"Help\" [e2]\n", r.Text)
	assert.Equal(t, 1, r.Generation)
	assert.Equal(t, 2, r.Refs)
	assert.Equal(t, 1.5, r.PageMS)

	got, err := s.Resolve(ctx, tabID, "e1")
	require.NoError(t, err)
	assert.Equal(t, Target{BackendNodeID: 101, Desc: `button "Save"`, FrameID: "MAIN"}, got)

	// The world is created once and reused.
	_, err = s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, f.count("Page.createIsolatedWorld"))
	assert.Equal(t, 1, f.count("Runtime.releaseObjectGroup"), "the resolve's objects are released by the next full snapshot")
	assert.Equal(t, 2, s.Generation(tabID))
	assert.Equal(t, true, f.walks[0]["reset"])
	assert.Equal(t, float64(1), f.walks[0]["next"])
}

func TestStaleRefs(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|button|Save||1|`, `0|button|Delete||2|`)
	f.backend[1], f.backend[2] = 101, 102
	s := newTestSnapshotter(f)
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)

	delete(f.backend, 2) // the element left the page
	_, err = s.Resolve(ctx, tabID, "e2")
	var stale *StaleRefError
	require.ErrorAs(t, err, &stale)
	assert.Equal(t, `ref e2 (button "Delete") is stale: the element was removed from the page after snapshot 1; take a new snapshot`, err.Error())

	f.records[""] = rec(`0|button|Save||1|`) // the next snapshot no longer has e2
	_, err = s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	f.backend[2] = 102
	_, err = s.Resolve(ctx, tabID, "e2")
	assert.EqualError(t, err, `ref e2 (button "Delete") is stale: the page changed since snapshot 1; take a new snapshot`)
	_, err = s.Resolve(ctx, tabID, "e1")
	assert.NoError(t, err, "a ref the latest snapshot issued again stays valid")

	s.Invalidate(tabID)
	_, err = s.Resolve(ctx, tabID, "e1")
	assert.EqualError(t, err, `ref e1 (button "Save") is stale: the tab navigated after snapshot 2; take a new snapshot`)

	_, err = s.Resolve(ctx, tabID, "e99")
	assert.EqualError(t, err, `ref e99 is unknown: no snapshot of this tab issued it; take a new snapshot`)
	_, err = s.Resolve(ctx, tabID, "button")
	assert.ErrorContains(t, err, `"button" is not a ref`)
}

func TestReplacedDocument(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|button|Save||1|`)
	f.backend[1] = 101
	s := newTestSnapshotter(f)
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)

	f.killWorlds() // navigated, and nobody called Invalidate
	_, err = s.Resolve(ctx, tabID, "e1")
	assert.EqualError(t, err, `ref e1 (button "Save") is stale: the page was replaced after snapshot 1; take a new snapshot`)

	r, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err, "a snapshot recreates the world")
	assert.Contains(t, r.Text, `button "Save" [e1]`)
	assert.Equal(t, 2, f.count("Page.createIsolatedWorld"))
}

func TestNavigationDropsWorlds(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|button|New||{n}|`)
	s := newTestSnapshotter(f)
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	s.Invalidate(tabID)
	f.records[""] = rec(`0|button|New||{n}|`) // a new document: new elements
	r, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	assert.Equal(t, 2, f.count("Page.createIsolatedWorld"), "a navigation means a new document and a new world")
	assert.Equal(t, 2, f.count("Page.getFrameTree"))
	assert.Contains(t, r.Text, "[e2]", "ref numbers are never reused in a tab")
}

func TestPartialSnapshotKeepsGeneration(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|navigation|Main||1|`, `1|link|Home||2|`, `0|button|Save||3|`)
	f.backend[1], f.backend[2], f.backend[3] = 101, 102, 103
	s := newTestSnapshotter(f)
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)

	f.records[""] = rec(`0|navigation|Main||1|`, `1|link|Home||2|`)
	r, err := s.Take(ctx, tabID, Options{Root: "e1"})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Generation)
	assert.Equal(t, float64(1), f.walks[1]["rootRef"])
	assert.NotEqual(t, true, f.walks[1]["reset"], "a subtree snapshot keeps the page's other refs")
	_, err = s.Resolve(ctx, tabID, "e3")
	assert.NoError(t, err)

	_, err = s.Take(ctx, tabID, Options{Root: "nav.main"})
	require.NoError(t, err)
	assert.Equal(t, "nav.main", f.walks[2]["root"])

	_, err = s.Take(ctx, tabID, Options{Root: "e42"})
	assert.ErrorContains(t, err, "ref e42 is unknown")

	delete(f.backend, 1)
	_, err = s.Take(ctx, tabID, Options{Root: "e1"})
	assert.EqualError(t, err, `ref e1 (navigation "Main") is stale: the element was removed from the page after snapshot 1; take a new snapshot`)
}

func TestOutOfProcessFrameSplice(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|heading|Top|level=1|1|`, `0|iframe|Pay|remote|2|`, `0|button|After||3|`)
	f.iframe[2], f.backend[2] = "CHILD", 202
	f.frames["S1"] = "CHILD"
	f.records["S1"] = rec(`0|textbox|Card number||{n}|`, `0|iframe|Nested|remote|{n}|`)
	f.backend[4] = 404
	s := newTestSnapshotter(f)
	s.attach(tabID, "S1", "CHILD")

	r, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	assert.Equal(t, "heading \"Top\" [level=1] [e1]\niframe \"Pay\" [e2]\n textbox \"Card number\" [e4]\n"+
		" iframe \"Nested\" [e5]\n  text: (frame content unavailable: no iframe there)\nbutton \"After\" [e3]\n", r.Text)
	assert.Equal(t, float64(4), f.walks[1]["next"], "the child frame numbers its refs after the parent's")

	got, err := s.Resolve(ctx, tabID, "e4")
	require.NoError(t, err)
	assert.Equal(t, Target{BackendNodeID: 404, Desc: `textbox "Card number"`, SessionID: "S1", FrameID: "CHILD"}, got)

	fr, err := s.Take(ctx, tabID, Options{Frame: "#CHILD"})
	require.NoError(t, err)
	assert.Contains(t, fr.Text, "textbox \"Card number\" [e4]\n")
	assert.NotContains(t, fr.Text, "Top")

	s.detach(tabID, "S1")
	_, ok := s.set.Get(tabID).ChildOf("CHILD")
	assert.False(t, ok)
}

func TestTakeRejectsNegativeOptions(t *testing.T) {
	s := newTestSnapshotter(newFakeTab())
	_, err := s.Take(context.Background(), tabID, Options{Limit: -1})
	assert.Error(t, err)
}

func TestNotRenderedYetIsSaid(t *testing.T) {
	f := newFakeTab()
	no := false
	f.rendered = &no
	s := newTestSnapshotter(f)
	r, err := s.Take(context.Background(), tabID, Options{})
	require.NoError(t, err)
	assert.True(t, r.NotRendered, "a page that drew nothing within the wait is said to be rendering")
	r, err = s.Take(context.Background(), tabID, Options{Find: "x"})
	require.NoError(t, err)
	assert.True(t, r.NotRendered)
	yes := true
	f.rendered = &yes
	r, err = s.Take(context.Background(), tabID, Options{})
	require.NoError(t, err)
	assert.False(t, r.NotRendered)
}

// A walk that was not committed (the tab navigated during it) left its
// numbers in the page's world, which the same document keeps: the next
// snapshot's new elements never take a number already shown.
func TestRefNumbersNeverRepeat(t *testing.T) {
	f := newFakeTab()
	f.records[""] = rec(`0|button|Old||5|`)
	f.keepNext = true
	s := newTestSnapshotter(f)
	_, err := s.Take(context.Background(), tabID, Options{})
	require.NoError(t, err)
	f.records[""] = rec(`0|button|Old||5|`, `0|button|New||{n}|`)
	r, err := s.Take(context.Background(), tabID, Options{})
	require.NoError(t, err)
	assert.Contains(t, r.Text, `button "New" [e6]`, "a new element takes a number past every one shown:\n%s", r.Text)
}

// The walker (~80 KB with the visibility test) is installed once per world
// and each snapshot sends only a call of it: a new document's world gets
// it again; a world without it fails rather than walking nothing.
func TestWalkerInstalledOncePerWorld(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|button|Save||1|`)
	f.backend[1] = 101
	s := newTestSnapshotter(f)
	for range 3 {
		_, err := s.Take(ctx, tabID, Options{})
		require.NoError(t, err)
	}
	require.Equal(t, map[int]int{1: 1}, f.walker, "one install in the one world, for three snapshots")
	f.killWorlds()
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	require.Equal(t, map[int]int{1: 1, 2: 1}, f.walker, "the new document's world gets its own")
	f.walker[2] = 0 // a world that lost it
	_, err = s.Take(ctx, tabID, Options{})
	require.Error(t, err)
}
