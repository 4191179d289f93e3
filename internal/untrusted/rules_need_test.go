package untrusted

import (
	"slices"
	"testing"
)

// classifyAll is Classify without the clause prefilter: every rule's
// expression on every sentence.
func classifyAll(text string) []Match { return classify(text, true) }

// TestRuleClausesAreNecessary: the clause prefilter never hides a match —
// on every corpus, Classify finds what running every expression on every
// sentence finds. A rule whose clauses miss a word its pattern can match
// fails here.
func TestRuleClausesAreNecessary(t *testing.T) {
	var texts []string
	for _, name := range []string{"attacks.txt", "attacks-holdout.txt", "attacks-holdout2.txt"} {
		for _, a := range attacksIn(t, name) {
			texts = append(texts, a.text)
		}
	}
	texts = append(texts, corpusSeeds(&testing.F{}, "flag.txt")...)
	texts = append(texts, okLines(t)...)
	for _, d := range []func(string) string{homoglyphs, fullwidth} {
		for _, x := range texts[:60] {
			texts = append(texts, d(x))
		}
	}
	for _, x := range texts {
		f := fold("\n" + x).s
		got, want := Rules{}.Classify(f), classifyAll(f)
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n with clauses    %+v\n every sentence  %+v", x, got, want)
		}
	}
}
