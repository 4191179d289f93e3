package policy

import (
	"testing"
)

func TestChangeLoosens(t *testing.T) {
	base := mustParse(t, `{"version":3,"rules":[
	  {"effect":"allow","class":"mutating","action":"interact.new_tab","origin":"http://127.0.0.1:*"},
	  {"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"}]}`)
	for _, tc := range []struct {
		name  string
		next  string
		loose bool
		lines int
	}{
		{"the same rules", `{"rules":[
		  {"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"},
		  {"effect":"allow","class":"mutating","action":"interact.new_tab","origin":"http://127.0.0.1:*"}]}`, false, 0},
		{"a deny rule added", `{"rules":[
		  {"effect":"allow","class":"mutating","action":"interact.new_tab","origin":"http://127.0.0.1:*"},
		  {"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"},
		  {"effect":"deny","class":"*","action":"interact.upload","origin":"*"}]}`, false, 1},
		{"a gate rule added, an allow rule removed", `{"rules":[
		  {"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"},
		  {"effect":"gate","class":"read_only","action":"observe.*","origin":"*"}]}`, false, 2},
		{"allow everything", `{"rules":[
		  {"effect":"allow","class":"mutating","action":"interact.new_tab","origin":"http://127.0.0.1:*"},
		  {"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"},
		  {"effect":"allow","class":"*","action":"*","origin":"*"}]}`, true, 1},
		{"the deny rule removed", `{"rules":[
		  {"effect":"allow","class":"mutating","action":"interact.new_tab","origin":"http://127.0.0.1:*"}]}`, true, 1},
		{"no rules at all", `{"rules":[]}`, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Diff(base, mustParse(t, tc.next))
			if got := c.Loosens(); got != tc.loose {
				t.Errorf("Loosens = %v, want %v (%v)", got, tc.loose, c.Lines())
			}
			if got := len(c.Lines()); got != tc.lines {
				t.Errorf("%d lines, want %d: %v", got, tc.lines, c.Lines())
			}
		})
	}
}

// A change that does not loosen never lets a call run with less asking:
// checked over a grid of calls.
func TestTighteningNeverAllowsMore(t *testing.T) {
	base := mustParse(t, `{"rules":[
	  {"effect":"allow","class":"mutating","action":"interact.*","origin":"http://127.0.0.1:*"},
	  {"effect":"gate","class":"read_only","action":"observe.storage","origin":"*"}]}`)
	next := mustParse(t, `{"rules":[
	  {"effect":"gate","class":"read_only","action":"observe.storage","origin":"*"},
	  {"effect":"deny","class":"sensitive","action":"*","origin":"*"},
	  {"effect":"gate","class":"read_only","action":"*","origin":"https://*.bank.com"}]}`)
	if Diff(base, next).Loosens() {
		t.Fatal("a tightening counted as loosening")
	}
	for _, class := range []Class{ReadOnly, Mutating, Sensitive} {
		for _, action := range []string{"interact.click", "observe.storage", "observe.logs", "interact.execute_js"} {
			for _, origin := range []string{"http://127.0.0.1:8080", "https://x.bank.com", "https://example.com", ""} {
				was, _ := base.Decide(class, action, origin)
				now, _ := next.Decide(class, action, origin)
				if now.rank() < was.rank() {
					t.Errorf("%s %s on %q: %s before, %s after", class, action, origin, was, now)
				}
			}
		}
	}
}

func TestRuleWords(t *testing.T) {
	r := Rule{Effect: Allow, Class: "*", Action: "*", Origin: "*"}
	if got, want := r.Words(), "Calls of every class of every tool on every site run without asking you (allow * * *)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r = Rule{Effect: Deny, Class: "sensitive", Action: "interact.execute_js", Origin: "https://*.bank.com"}
	if got, want := r.Words(), "Sensitive calls of interact.execute_js on https://*.bank.com are refused outright (deny sensitive interact.execute_js https://*.bank.com)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
