package untrusted

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

var reasonKeys = map[string]string{
	"addressed": ReasonAddressed, "ignore": ReasonIgnore, "role": ReasonRole, "approve": ReasonApprove,
	"policy": ReasonPolicy, "reveal": ReasonReveal, "send": ReasonSend, "tool": ReasonTool,
}

// corpus reads testdata/name: one case a line, # comments and blank lines
// skipped.
func corpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// TestRulesFlag: every instruction-like line of the corpus is flagged, and
// for the reason it names.
func TestRulesFlag(t *testing.T) {
	cases := corpus(t, "flag.txt")
	if len(cases) < 40 {
		t.Fatalf("flag corpus has %d cases; want at least 40", len(cases))
	}
	for _, c := range cases {
		key, text, ok := strings.Cut(c, "\t")
		want := reasonKeys[key]
		if !ok || want == "" {
			t.Fatalf("bad corpus line %q", c)
		}
		t.Run(text, func(t *testing.T) {
			ms := Rules{}.Classify(text)
			var got []string
			for _, m := range ms {
				got = append(got, m.Reason)
				if m.Reason == want {
					return
				}
			}
			t.Errorf("Classify(%q) = %v; want a match for %q", text, got, want)
		})
	}
}

// TestRulesOrdinaryText: ordinary interface and content text is never
// flagged.
func TestRulesOrdinaryText(t *testing.T) {
	cases := corpus(t, "ok.txt")
	if len(cases) < 80 {
		t.Fatalf("ok corpus has %d cases; want at least 80", len(cases))
	}
	for _, text := range cases {
		if ms := (Rules{}).Classify(text); len(ms) > 0 {
			t.Errorf("Classify(%q) flagged %q as %q; want nothing", text, text[ms[0].Start:ms[0].End], ms[0].Reason)
		}
	}
}
