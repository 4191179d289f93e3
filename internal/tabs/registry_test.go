package tabs

import (
	"slices"
	"strings"
	"testing"
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
	if _, ok := r.Release(1, ReasonClosed); ok {
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
	r.SetGroup("A", 7)
	if got := r.EndSession("A"); !slices.Equal(got, []int{100}) {
		t.Fatalf("EndSession = %v", got)
	}
	if r.Owned(100) || r.Group("A") != NoGroup {
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

// TestNoTabSaysWhatBecameOfTheLast: a session whose tabs are gone says
// what became of its last one, not "no tab yet".
func TestNoTabSaysWhatBecameOfTheLast(t *testing.T) {
	r := NewRegistry()
	if _, why := r.Lookup("s", 0); why.Kind != WhyNoTab || why.Tab != 0 || !strings.Contains(lookupError(0, why).Message, "no tab yet") {
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
