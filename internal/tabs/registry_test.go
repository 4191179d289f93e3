package tabs

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
)

func TestRegistryOwnershipAndCurrentTab(t *testing.T) {
	r := NewRegistry()
	if !r.Own("A", 1) || !r.Own("A", 2) || !r.Own("B", 3) {
		t.Fatal("fresh tabs must be ownable")
	}
	if r.Own("B", 1) {
		t.Fatal("B took A's tab")
	}
	if got, want := r.Tabs("A"), []int{2, 1}; !slices.Equal(got, want) {
		t.Fatalf("A's tabs = %v, want %v (current first)", got, want)
	}
	r.Use("A", 1)
	if got, _ := r.Lookup("A", 0); got != 1 {
		t.Fatalf("current tab after Use(1) = %d, want 1", got)
	}
	r.Use("B", 2) // not B's: ignored
	if got, _ := r.Lookup("A", 0); got != 1 {
		t.Fatalf("B's Use moved A's current tab to %d", got)
	}
}

func TestRegistryLookupSaysWhy(t *testing.T) {
	r := NewRegistry()
	r.Own("A", 1)
	r.Own("A", 2)
	r.Own("B", 3)
	r.Release(2, ReasonUngrouped)
	r.Own("A", 4)
	r.Release(4, ReasonClosed)
	tests := []struct {
		name    string
		session string
		tab     int
		want    int
		kind    int
		reason  string
	}{
		{"own tab", "A", 1, 1, WhyOK, ""},
		{"current", "A", 0, 1, WhyOK, ""},
		{"other session's", "A", 3, 0, WhyOther, ""},
		{"dragged out", "A", 2, 0, WhyGone, ReasonUngrouped},
		{"closed", "A", 4, 0, WhyGone, ReasonClosed},
		{"never seen", "A", 99, 0, WhyNotOwned, ""},
		{"no tab at all", "C", 0, 0, WhyNoTab, ""},
		{"closed tab of another session", "B", 4, 0, WhyNotOwned, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := r.Lookup(tc.session, tc.tab)
			if got != tc.want || why.Kind != tc.kind || why.Reason != tc.reason {
				t.Fatalf("Lookup(%s, %d) = %d, %+v; want %d, kind %d reason %q", tc.session, tc.tab, got, why, tc.want, tc.kind, tc.reason)
			}
		})
	}
}

func TestRegistryClosedAfterUngroupedSaysClosed(t *testing.T) {
	r := NewRegistry()
	r.Own("A", 1)
	r.Release(1, ReasonUngrouped)
	if _, _, ok := r.Release(1, ReasonClosed); ok {
		t.Fatal("a released tab was released again")
	}
	if _, why := r.Lookup("A", 1); why.Reason != ReasonClosed {
		t.Fatalf("reason = %q, want closed", why.Reason)
	}
}

func TestRegistryEndSessionAndGoneBound(t *testing.T) {
	r := NewRegistry()
	for i := 1; i <= maxGone+5; i++ {
		r.Own("A", i)
		r.Release(i, ReasonClosed)
	}
	if _, why := r.Lookup("A", 1); why.Kind != WhyNotOwned {
		t.Fatalf("the oldest released tab is still remembered: %+v", why)
	}
	if _, why := r.Lookup("A", maxGone+5); why.Kind != WhyGone {
		t.Fatalf("the newest released tab is forgotten: %+v", why)
	}
	r.Own("A", 100)
	r.Share("A", 101)
	r.SetGroup("A", 0, 7)
	held, groups := r.EndSession("A")
	if !slices.Equal(held, []Held{{100, Opened}, {101, Shared}}) || groups[0] != 7 {
		t.Fatalf("EndSession = %v, %v", held, groups)
	}
	if r.Owned(100) || r.Group("A", 0) != NoGroup {
		t.Fatal("an ended session keeps state")
	}
	if !r.Own("B", 100) {
		t.Fatal("a released tab cannot be owned again")
	}
}

func TestGroupTitle(t *testing.T) {
	for in, want := range map[string]string{"": "Gasoline", " claude-code ": "Gasoline · claude-code"} {
		if got := GroupTitle(in); got != want {
			t.Errorf("GroupTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// Groups are per browser; a tab given by the user stays shared when the
// session uses it, and the snapshot brings back exactly what was there.
func TestRegistryGroupsKindsAndSnapshot(t *testing.T) {
	r := NewRegistry()
	other := browsers.TabID(1, 5)
	r.Own("A", 5)
	r.Share("A", other)
	r.Own("A", other) // re-owning a shared tab keeps it shared
	r.SetGroup("A", 0, 3)
	r.SetGroup("A", 1, 3) // the same group id in another browser
	r.Use("A", 5)
	if k, _ := r.Kind(other); k != Shared {
		t.Fatalf("kind = %v, want shared", k)
	}
	if sid, ok := r.GroupOwner(1, 3); !ok || sid != "A" {
		t.Fatalf("GroupOwner(1, 3) = %q, %v", sid, ok)
	}
	if _, ok := r.GroupOwner(2, 3); ok {
		t.Fatal("a group of another browser matched")
	}
	if !r.InUse(1) || r.InUse(2) {
		t.Fatal("InUse is wrong")
	}
	snap := r.Snapshot()
	back := NewRegistry()
	back.Restore(snap)
	if got, want := back.Tabs("A"), []int{5, other}; !slices.Equal(got, want) {
		t.Fatalf("restored tabs = %v, want %v (current first)", got, want)
	}
	if k, _ := back.Kind(other); k != Shared || back.Group("A", 1) != 3 || back.Group("A", 0) != 3 {
		t.Fatal("restore lost a kind or a group")
	}
	if !reflect.DeepEqual(back.Snapshot(), snap) {
		t.Fatalf("snapshot after restore differs:\n%+v\n%+v", back.Snapshot(), snap)
	}
}

// A shared tab the user took back says tab_not_shared, also to a call
// that names no tab.
func TestLookupOfATabTakenBack(t *testing.T) {
	r := NewRegistry()
	r.Share("A", 9)
	r.Release(9, ReasonUngrouped)
	for _, tab := range []int{9, 0} {
		_, why := r.Lookup("A", tab)
		e := lookupError(tab, why)
		if e.Code != CodeTabNotShared || e.NextAction == nil || e.NextAction.AskUser == "" {
			t.Fatalf("Lookup(A, %d) error = %+v", tab, e)
		}
	}
}

func TestRegistryReplace(t *testing.T) {
	r := NewRegistry()
	r.Own("A", 1)
	r.Own("A", 2)
	r.Own("A", 3)
	r.Use("A", 2) // order, oldest first: 1 3 2
	r.Own("B", 9)
	if sid, ok := r.Replace(3, 30); !ok || sid != "A" {
		t.Fatalf("Replace(3, 30) = %q, %v; want A, true", sid, ok)
	}
	if got, want := r.Tabs("A"), []int{2, 30, 1}; !slices.Equal(got, want) {
		t.Fatalf("A's tabs = %v, want %v (the new tab in the old one's place)", got, want)
	}
	if owner, _ := r.Owner(30); owner != "A" || r.Owned(3) {
		t.Fatalf("after Replace: owner of 30 %q, 3 still owned %v", owner, r.Owned(3))
	}
	if _, why := r.Lookup("A", 3); why.Kind != WhyGone || why.Reason != ReasonReplaced || why.By != 30 {
		t.Fatalf("Lookup(A, 3) = %+v, want gone, replaced by 30", why)
	}
	r.Replace(2, 20) // the current tab stays current under its new id
	if got, _ := r.Lookup("A", 0); got != 20 {
		t.Fatalf("current tab = %d, want 20", got)
	}
	for _, tc := range []struct {
		name     string
		old, now int
	}{
		{"not owned", 5, 50},
		{"onto another session's tab", 1, 9},
		{"onto itself", 1, 1},
	} {
		if sid, ok := r.Replace(tc.old, tc.now); ok || sid != "" {
			t.Errorf("%s: Replace(%d, %d) = %q, %v; want refused", tc.name, tc.old, tc.now, sid, ok)
		}
	}
	if owner, _ := r.Owner(9); owner != "B" || !r.Owned(1) {
		t.Fatal("a refused Replace changed ownership")
	}
}

// TestNoTabSaysWhatBecameOfTheLast: a session whose tabs are gone says
// what became of its last one, not "no tab yet".
func TestNoTabSaysWhatBecameOfTheLast(t *testing.T) {
	r := NewRegistry()
	if _, why := r.Lookup("s", 0); why.Kind != WhyNoTab || why.Last != 0 || !strings.Contains(lookupError(0, why).Message, "no tab yet") {
		t.Fatalf("fresh session: %+v", why)
	}
	for _, c := range []struct {
		reasons []string
		want    string
	}{
		{[]string{ReasonClosed}, "its tab 7 was closed (by the user"},
		{[]string{ReasonUngrouped}, "its tab 7 left the session"},
		{[]string{ReasonUngrouped, ReasonClosed}, "its tab 7 was closed (by the user"}, // dragged out, then closed
		{[]string{ReasonCloseTab, ReasonClosed}, "it closed its last one (tab 7, interact close_tab)"},
	} {
		r.Own("s", 7)
		for _, reason := range c.reasons {
			r.Release(7, reason)
		}
		_, why := r.Lookup("s", 0)
		msg := lookupError(0, why).Message
		if why.Kind != WhyNoTab || !strings.Contains(msg, c.want) || strings.Contains(msg, "yet") {
			t.Errorf("after %v: %q, want %q", c.reasons, msg, c.want)
		}
	}
}
