package untrusted

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

//go:generate go run gen_fold.go

// Page text is folded before it is scanned and before its lines are
// checked against Gasoline's own (fence.go): what a person reads as the
// same letters becomes the same bytes, so that look-alike text reads as
// what it looks like:
//
//   - invisible characters go: zero-width spaces and joiners, bidi
//     controls, variation selectors, the combining grapheme joiner, Hangul
//     fillers, the soft hyphen (Invisible); tag characters read as the
//     ASCII they smuggle;
//   - NFKC (golang.org/x/text, at generate time): fullwidth letters,
//     mathematical alphabets, ligatures and compatibility forms become the
//     letters they are; accents and other combining marks come off;
//   - every other non-ASCII character becomes its UTS #39 prototype
//     (Unicode's confusables.txt: Cyrillic а, Greek ο, Armenian օ → a, o);
//   - letters are lowercased, spaces of every width become one space, and
//     letter-spaced words ("i g n o r e", "i.g.n.o.r.e") close up.
//
// The table behind it, fold_table.go, is generated from
// testdata/unicode/confusables.txt (Unicode 17.0.0) by gen_fold.go.

// foldRange is a run of runes [lo, hi] that fold to fold, or (seq) to the
// one-byte fold that counts up from fold with the rune.
type foldRange struct {
	lo, hi rune
	fold   string
	seq    bool
}

// appendFold appends the fold of one non-ASCII rune.
func appendFold(dst []byte, r rune) []byte {
	i := sort.Search(len(foldRanges), func(i int) bool { return foldRanges[i].hi >= r })
	if i < len(foldRanges) && foldRanges[i].lo <= r {
		fr := &foldRanges[i]
		if fr.seq {
			return append(dst, fr.fold[0]+byte(r-fr.lo))
		}
		return append(dst, fr.fold...)
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

// Invisible reports whether r draws nothing and moves nothing: a format
// character (zero-width space or joiner, bidi control, tag, soft hyphen),
// a variation selector or another default-ignorable code point, but not a
// prepended concatenation mark (those are drawn).
func Invisible(r rune) bool {
	if r < 0xAD || unicode.Is(unicode.Prepended_Concatenation_Mark, r) {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// folded is a text folded for matching: s, and where each of its bytes
// came from in the original (at[i] is the original offset of s[i]; at has
// len(s)+1 entries, the last the original's length). at is nil when s is
// the original lowercased byte for byte.
type folded struct {
	s  string
	at []int32
}

// orig maps an offset in the folded text back to the original.
func (f folded) orig(i int) int {
	if f.at == nil {
		return i
	}
	return int(f.at[i])
}

// fold folds s (see above).
func fold(s string) folded {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii && !hasSpacedRun(s) {
		return folded{s: lowerASCII(s)}
	}
	b := make([]byte, 0, len(s))
	at := make([]int32, 0, len(s)+1)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			at = append(at, int32(i))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		k := len(b)
		if r == utf8.RuneError && n == 1 {
			b = append(b, '?')
		} else {
			b = appendFold(b, r)
		}
		for ; k < len(b); k++ {
			at = append(at, int32(i))
		}
		i += n
	}
	at = append(at, int32(len(s)))
	b, at = closeSpacedRuns(b, at)
	return folded{s: string(b), at: at}
}

// spacers are what letter-spacing puts between the letters of a word.
func spacer(c byte) bool {
	return c == ' ' || c == '.' || c == '-' || c == '_' || c == '*' || c == '|' || c == '/' || c == '\t'
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func alnum(c byte) bool { return letter(c) || c >= '0' && c <= '9' }

// maxGap is the widest gap between two letter-spaced words.
const maxGap = 8

// minSpaced is how many letters in a row, each alone between spacers, make
// a letter-spaced word.
const minSpaced = 4

// spacedRun walks the letter-spaced run that starts at b[i] (a letter
// after a non-letter, followed by a spacer): at least minSpaced letters,
// each standing alone. Spaced with spaces ("i g n o r e"), every character
// standing alone between spaces belongs to the run (digits, "@", ".", "_",
// "-", "/" of addresses and names too) and a gap of two spaces or more
// between two of them ends a word: "i g n o r e   a l l". Spaced with
// another spacer ("i.g.n.o.r.e", "i-g-n"), the letters and digits between
// single spacers do. It returns the end of the run (i when there is none)
// and, when each is not nil, calls each for every character of the run
// with whether a word ends before it.
func spacedRun[T string | []byte](b T, i int, each func(j int, word bool)) int {
	if i+1 >= len(b) || !spacer(b[i+1]) {
		return i
	}
	sp := b[i+1]
	if sp == '\t' {
		sp = ' '
	}
	alone := func(j int) bool {
		if j >= len(b) || b[j] >= utf8.RuneSelf {
			return false
		}
		if sp == ' ' {
			return b[j] != ' ' && b[j] != '\t' && (j+1 == len(b) || b[j+1] == ' ' || b[j+1] == '\t')
		}
		return alnum(b[j]) && (j+1 == len(b) || !alnum(b[j+1]))
	}
	n, j, end, word := 0, i, i, false
	cur := sp // the current word's spacer
	for alone(j) {
		if each != nil {
			each(j, word)
		}
		if letter(b[j]) {
			n++
		}
		end = j + 1
		k := j + 1
		gap := k
		for gap < len(b) && gap-k < maxGap && (b[gap] == sp || sp == ' ' && b[gap] == '\t' || sp != ' ' && spacer(b[gap])) {
			gap++
		}
		if gap == k || !alone(gap) {
			break
		}
		switch {
		case sp == ' ':
			word = gap-k > 1
		case cur == 0 && gap-k == 1:
			cur, word = b[k], false
		default:
			word = gap-k > 1 || b[k] != cur
			if word {
				cur = 0 // the next word's spacer is its own
			}
		}
		j = gap
	}
	if n < minSpaced {
		return i
	}
	return end
}

// hasSpacedRun reports whether s has a letter-spaced run.
func hasSpacedRun(s string) bool {
	for i := 0; i+2*minSpaced-1 <= len(s); i++ {
		if letter(s[i]) && (i == 0 || !letter(s[i-1])) && spacer(s[i+1]) && spacedRun(s, i, nil) > i {
			return true
		}
	}
	return false
}

// closeSpacedRuns removes the spacers inside letter-spaced runs, keeping
// one space where a wider gap split two words.
func closeSpacedRuns(b []byte, at []int32) ([]byte, []int32) {
	var ob []byte
	var oat []int32
	copied := 0
	for i := 0; i < len(b); i++ {
		if !letter(b[i]) || (i > 0 && letter(b[i-1])) || i+1 >= len(b) || !spacer(b[i+1]) {
			continue
		}
		if spacedRun(b, i, nil) == i {
			continue
		}
		if ob == nil {
			ob, oat = make([]byte, 0, len(b)), make([]int32, 0, len(at))
		}
		ob, oat = append(ob, b[copied:i]...), append(oat, at[copied:i]...)
		end := spacedRun(b, i, func(j int, word bool) {
			if word {
				ob, oat = append(ob, ' '), append(oat, at[j-1])
			}
			ob, oat = append(ob, b[j]), append(oat, at[j])
		})
		copied, i = end, end-1
	}
	if ob == nil {
		return b, at
	}
	ob, oat = append(ob, b[copied:]...), append(oat, at[copied:]...)
	return ob, oat
}

// lowerASCII lowercases ASCII letters only, so offsets stay the same.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
