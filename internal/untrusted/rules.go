package untrusted

import (
	"cmp"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Match is one instruction-like passage a Classifier found in a text:
// byte offsets [Start, End) and why it reads like an instruction.
type Match struct {
	Start, End int
	Reason     string
}

// Classifier finds instruction-like passages in page text. Scan hands it
// every passage of a result at once, folded (fold.go: lowercase,
// look-alikes and invisible characters resolved, letter-spacing closed),
// each passage after a line break. It must be safe for concurrent use,
// return matches within the text, and never fail: Scan calls it on every
// page-text result.
type Classifier interface {
	Classify(text string) []Match
}

// Rules is the deterministic Classifier: the families of families.go,
// each a few regular expressions written to flag what prompt-injection
// text asks for while leaving ordinary documentation and interface text
// alone ("You must call Close", "Ignore this field if…", "Never share
// your password"). testdata/ holds the corpora that pin both sides.
//
// An expression runs only on a sentence that holds a word of each of its
// rule's clauses (need): one pass over the words decides which rules a
// sentence can match, so ordinary text — where those words seldom meet —
// costs a map lookup per word.
type Rules struct{}

// rule is one pattern of a family.
type rule struct {
	reason  string
	pattern string
	// need lists the rule's clauses: the sentence must hold a word of every
	// one. A word matches a clause word it starts with when the clause
	// word has four letters or more and the rest is at most maxSuffix
	// letters ("instructions" for "instruction"); pseudo-words stand for
	// what is not a word (pseudoWords).
	need [][]string
	// negatable rules skip a match right after "never", "don't", "do not"
	// or "not": warnings like "Never share your password" stay unflagged.
	negatable bool
}

// The pseudo-words a sentence holds besides its words.
const (
	wCurrency  = "$"         // a currency sign
	wAt        = "@"         // an e-mail address
	wNumber    = "#number"   // a run of five digits or more (account numbers)
	wAngle     = "<"         // an angle bracket
	wBracket   = "["         // a square bracket
	wBrace     = "{"         // a curly brace
	wImage     = "!["        // a markdown image
	wHash      = "#"         // a markdown heading mark
	wSnake     = "#snake("   // a snake_case word followed by "(": a tool call
	wSnakeWord = "#snake"    // a snake_case word
	wComma     = ","         // a comma
	wParen     = "("         // an opening parenthesis
	wDash1     = "#dash"     // a dash after a space
	wIBAN      = "#iban"     // a word of 15 or more letters and digits with both (an IBAN)
	wGlued     = "#glued"    // a word over 12 letters starting ignore/disregard/forget
	wURL       = "#url"      // http://, https:// or www.
	wQuote     = "#quote"    // a quotation mark
	wColon     = "#colon"    // a colon
	wDash      = "#dashdash" // "===" or "---" or "%%%"
)

const negation = `(?:\bnever|\bdon'?t|\bdo\s+not|\bnot|\bno)\s+(?:\w+\s+){0,1}$`

// maxSuffix is how many letters a word may add to a clause word of four
// letters or more and still match it (agents, instructions, redacting).
const maxSuffix = 4

// compiled is the rule table made ready to run.
type compiled struct {
	rules    []rule           // the table: baseRules, moreRules, evenMoreRules (families.go)
	res      []*regexp.Regexp // the table's rule i's expression
	fast     []*regexp.Regexp // the same with long bounded repetitions unbounded (reach)
	full     []uint8          // the table's rule i's clauses, one bit each
	negation *regexp.Regexp
	index    map[string][]clauseRef // each clause word → the clauses it satisfies
}

type clauseRef struct {
	rule   uint16
	clause uint8
}

// longRepeat is a bounded repetition of 30 or more.
var longRepeat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{0,(?:[3-9]\d|\d{3,})\}`) })

// reach rewrites a pattern's long bounded repetitions ("[^.\n]{0,60}?") as
// unbounded ones: Go's regexp copies a bounded repetition once per count,
// which makes such patterns several times slower. The unbounded pattern
// matches wherever the bounded one does, so it runs first, on every
// candidate sentence; the bounded one — how far apart the parts of a match
// may be — only where it found something.
func reach(pattern string) string { return longRepeat().ReplaceAllString(pattern, "*") }

// compiledRules compiles the table on first use, not at start: only the
// daemon scans page text, and compiling takes a few megabytes and
// milliseconds that gasoline-host's other modes (the native-messaging
// relay, --mcp, the CLI) would otherwise pay at every start.
var compiledRules = sync.OnceValue(func() *compiled {
	c := &compiled{rules: slices.Concat(baseRules(), moreRules(), evenMoreRules()), negation: regexp.MustCompile(negation), index: map[string][]clauseRef{}}
	for i, r := range c.rules {
		if len(r.need) == 0 || len(r.need) > 8 {
			panic("untrusted: rule " + r.pattern[:min(40, len(r.pattern))] + " needs 1 to 8 clauses")
		}
		c.res = append(c.res, regexp.MustCompile(r.pattern))
		c.fast = append(c.fast, regexp.MustCompile(reach(r.pattern)))
		c.full = append(c.full, uint8(1<<len(r.need)-1))
		for k, clause := range r.need {
			for _, w := range clause {
				c.index[w] = append(c.index[w], clauseRef{uint16(i), uint8(k)})
			}
		}
	}
	return c
})

// Classify implements Classifier: every rule's matches, in text order,
// overlapping matches merged (the first rule's reason stays).
func (Rules) Classify(text string) []Match { return classify(text, false) }

// classify is Classify; every, for a test, runs every expression on every
// sentence instead of only where the clauses are satisfied.
func classify(text string, every bool) []Match {
	c := compiledRules()
	lm := model()
	low := lowerASCII(text)
	var out []Match
	sat := make([]uint8, len(c.rules))
	var touched []uint16
	sentences(low, func(start, end int, words []string) {
		for _, w := range words {
			for _, ref := range c.lookup(w) {
				if sat[ref.rule] == 0 {
					touched = append(touched, ref.rule)
				}
				sat[ref.rule] |= 1 << ref.clause
			}
		}
		found := len(out)
		defer func() {
			if len(out) == found && lm != nil && realWords(words) >= minModelWords && agentive(words) && lm.score(words) >= lm.threshold {
				out = append(out, sentenceMatch(low, start, end, closestFamily(c, sat, touched)))
			}
			for _, ri := range touched {
				sat[ri] = 0
			}
			touched = touched[:0]
		}()
		if len(touched) == 0 && !every {
			return
		}
		s := "\n" + low[start:end] // every sentence starts after a line break
		slices.Sort(touched)
		for ri := range c.rules {
			if !every && (sat[ri] == 0 || sat[ri] != c.full[ri]) {
				continue
			}
			r := &c.rules[ri]
			if !c.fast[ri].MatchString(s) {
				continue // the quick look: no match even without the bounds
			}
			for _, m := range c.res[ri].FindAllStringIndex(s, -1) {
				if r.negatable && c.negation.MatchString(s[max(0, m[0]-24):m[0]]) {
					continue
				}
				out = append(out, Match{Start: start + max(0, m[0]-1), End: start + m[1] - 1, Reason: r.reason})
			}
		}
	})
	return merge(out)
}

// minModelWords is the fewest words a sentence needs for the model to
// judge it: a short one ("Tell us about you") says too little.
const minModelWords = 6

func realWords(words []string) int {
	n := 0
	for _, w := range words {
		if w[0] >= 'a' && w[0] <= 'z' || w[0] >= '0' && w[0] <= '9' {
			n++
		}
	}
	return n
}

// agentive reports whether words hold one of which a sentence the model
// flags must hold one: it speaks to someone (you), of the agent, of its
// user or of its instructions. "Ignore all notifications from this thread"
// does not. (A switch: no table to build at start.)
func agentive(words []string) bool {
	for _, w := range words {
		switch w {
		case "you", "your", "yours", "yourself", "user", "users", "assistant",
			"agent", "agents", "ai", "model", "bot", "bots", "llm", "gpt",
			"claude", "chatgpt", "gemini", "instructions", "instruction", "prompt",
			"system", "human", "owner", "operator", "task", "me", "my":
			return true
		}
	}
	return false
}

// sentenceMatch is a match over a whole sentence, less the spaces and
// quotes around it.
func sentenceMatch(low string, start, end int, reason string) Match {
	for start < end && strings.IndexByte(" \t\"'`-*>#([", low[start]) >= 0 {
		start++
	}
	for end > start && strings.IndexByte(" \t\"'`", low[end-1]) >= 0 {
		end--
	}
	return Match{Start: start, End: max(end, start+1), Reason: reason}
}

// closestFamily is the reason of the rule whose clauses a sentence the
// model flagged satisfies most (the share of them), for a finding only the
// model made: the family the sentence's words point to.
func closestFamily(c *compiled, sat []uint8, touched []uint16) string {
	best, bestShare := ReasonAddressed, 0.0
	for _, ri := range touched {
		share := float64(bits.OnesCount8(sat[ri])) / float64(bits.OnesCount8(c.full[ri]))
		if share > bestShare {
			best, bestShare = c.rules[ri].reason, share
		}
	}
	return best
}

// lookup returns the clauses a word satisfies: as it is, or as a clause
// word of four letters or more followed by at most maxSuffix letters.
func (c *compiled) lookup(w string) []clauseRef {
	refs := c.index[w]
	if len(w) <= 4 || w[0] == '#' {
		return refs
	}
	for k := 1; k <= maxSuffix && len(w)-k >= 4; k++ {
		if more := c.index[w[:len(w)-k]]; len(more) > 0 {
			refs = append(slices.Clip(refs), more...)
		}
	}
	return refs
}

// sentences splits low (folded text) into sentences — at line breaks,
// NULs, and ".", "!" or "?" before a space, a quote or the end — and calls
// fn with each one's bounds and its words and pseudo-words. The words
// slice is reused between calls.
func sentences(low string, fn func(start, end int, words []string)) {
	var words []string
	start := 0
	flush := func(end int) {
		if len(words) > 0 {
			fn(start, end, words)
		}
		words = words[:0]
	}
	for i := 0; i < len(low); {
		ch := low[i]
		switch {
		case ch == '\n' || ch == 0:
			flush(i)
			i++
			start = i
			continue
		case (ch == '.' || ch == '!' || ch == '?') && (i+1 == len(low) || low[i+1] == ' ' || low[i+1] == '"' || low[i+1] == '\''):
			i++
			flush(i)
			start = i
			continue
		case isWordByte(ch):
			j := i
			for j < len(low) && isWordByte(low[j]) {
				j++
			}
			w := low[i:j]
			words = append(words, w)
			switch {
			case strings.IndexByte(w, '_') > 0:
				words = append(words, wSnakeWord)
				for part := range strings.SplitSeq(w, "_") {
					if part != "" {
						words = append(words, part)
					}
				}
				if j < len(low) && low[j] == '(' {
					words = append(words, wSnake)
				}
			case len(w) >= 5 && allDigits(w):
				words = append(words, wNumber)
			case len(w) >= 15 && len(w) <= 34 && strings.ContainsAny(w, "0123456789") && strings.ContainsAny(w[:2], "abcdefghijklmnopqrstuvwxyz"):
				words = append(words, wIBAN)
			case len(w) > 12 && (strings.HasPrefix(w, "ignore") || strings.HasPrefix(w, "disregard") || strings.HasPrefix(w, "forget") || strings.HasPrefix(w, "lgnore")):
				words = append(words, wGlued)
			case w == "http" || w == "https" || w == "www":
				words = append(words, wURL)
			}
			i = j
			continue
		}
		if p := pseudoWord(low, i); p != "" {
			words = append(words, p)
		}
		i++
	}
	flush(len(low))
}

// pseudoWord is the pseudo-word the byte at low[i] stands for, or "".
func pseudoWord(low string, i int) string {
	switch low[i] {
	case '$', 0xE2, 0xC2: // $, and the lead bytes of €, £, ¥ (folded text keeps them)
		if low[i] == '$' || strings.HasPrefix(low[i:], "€") || strings.HasPrefix(low[i:], "£") || strings.HasPrefix(low[i:], "¥") {
			return wCurrency
		}
	case '@':
		return wAt
	case '<', '>':
		return wAngle
	case '[', ']':
		return wBracket
	case '{', '}':
		return wBrace
	case '!':
		if i+1 < len(low) && low[i+1] == '[' {
			return wImage
		}
	case '#':
		return wHash
	case '"', '\'', '`':
		return wQuote
	case ':':
		return wColon
	case ',':
		return wComma
	case '(':
		return wParen
	case '=', '-', '%':
		if i+2 < len(low) && low[i+1] == low[i] && low[i+2] == low[i] {
			return wDash
		}
		if low[i] == '-' && i > 0 && low[i-1] == ' ' {
			return wDash1
		}
	}
	return ""
}

func allDigits(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' }

// merge sorts matches by start and keeps one of each overlapping run (the
// first rule's reason).
func merge(ms []Match) []Match {
	if len(ms) < 2 {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b Match) int { return cmp.Compare(a.Start, b.Start) })
	out := ms[:1]
	for _, m := range ms[1:] {
		last := &out[len(out)-1]
		if m.Start < last.End {
			last.End = max(last.End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}
