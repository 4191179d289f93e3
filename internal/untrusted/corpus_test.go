package untrusted

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The scanner's two figures: how much of an attack corpus it flags (goal
// ≥ 90%) and how often it flags ordinary documentation (goal ≤ 0.1 flags
// per 1,000 lines). Both tests print their figures.

// attack is one passage of testdata/attacks.txt.
type attack struct{ family, text string }

func attacks(t *testing.T) []attack { return attacksIn(t, "attacks.txt") }

func attacksIn(t *testing.T, name string) []attack {
	t.Helper()
	var out []attack
	for _, l := range corpus(t, name) {
		fam, text, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("bad attack corpus line %q", l)
		}
		out = append(out, attack{fam, strings.ReplaceAll(text, `\n`, "\n")})
	}
	return out
}

// flagged scans one passage as a page text result would be scanned.
func flagged(text string) Report { return Scan(Rules{}, Input{Text: text}) }

// TestAttackCorpus: at least 90% of the attack corpus (≥ 300 passages of
// our own wording across the families) is flagged, at least 75% of every
// family, and each finding names a family.
func TestAttackCorpus(t *testing.T) {
	as := attacks(t)
	if len(as) < 300 {
		t.Fatalf("the attack corpus has %d passages; want at least 300", len(as))
	}
	type tally struct{ n, hit, sameFamily int }
	fams := map[string]*tally{}
	hit := 0
	var missed []string
	for _, a := range as {
		tl := fams[a.family]
		if tl == nil {
			tl = &tally{}
			fams[a.family] = tl
		}
		tl.n++
		r := flagged(a.text)
		if r.Total == 0 {
			missed = append(missed, a.family+": "+a.text)
			continue
		}
		hit++
		tl.hit++
		if slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Reason == familyReasons[a.family] }) {
			tl.sameFamily++
		}
		for _, f := range r.Findings {
			if !slices.Contains(Reasons, f.Reason) {
				t.Errorf("finding reason %q is not a family (Reasons)", f.Reason)
			}
		}
	}
	names := make([]string, 0, len(fams))
	for k := range fams {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		tl := fams[k]
		t.Logf("%-12s %3d/%3d flagged (%5.1f%%), %3d for its own family", k, tl.hit, tl.n, 100*float64(tl.hit)/float64(tl.n), tl.sameFamily)
		if tl.hit*4 < tl.n*3 {
			t.Errorf("family %s: %d of %d flagged; want at least 75%%", k, tl.hit, tl.n)
		}
	}
	rate := 100 * float64(hit) / float64(len(as))
	t.Logf("ATTACK CORPUS: %d of %d passages flagged (%.1f%%)", hit, len(as), rate)
	for _, m := range missed {
		t.Logf("missed: %s", m)
	}
	if hit*10 < len(as)*9 {
		t.Errorf("%.1f%% of the attack corpus flagged; want at least 90%%", rate)
	}
}

// holdoutFloor is the least share of each held-out set the rules must
// flag: the sets the rules were later generalised on stay high; the last
// one, never tuned on, is the honest figure and only guards against a
// regression.
var holdoutFloor = map[string]int{
	"attacks-holdout.txt": 90, "attacks-holdout2.txt": 90, "attacks-holdout3.txt": 90, "attacks-holdout4.txt": 55, "attacks-holdout5.txt": 50,
}

// TestAttackHoldout: the held-out passages (written after the rules and
// never used to tune them) — the honest estimate of wording the rules have
// not seen.
func TestAttackHoldout(t *testing.T) {
	for _, name := range []string{"attacks-holdout.txt", "attacks-holdout2.txt", "attacks-holdout3.txt", "attacks-holdout4.txt", "attacks-holdout5.txt"} {
		as := attacksIn(t, name)
		hit := 0
		for _, a := range as {
			if flagged(a.text).Total > 0 {
				hit++
			} else {
				t.Logf("missed: %s: %s", a.family, a.text)
			}
		}
		t.Logf("HELD-OUT ATTACKS %s: %d of %d passages flagged (%.1f%%)", name, hit, len(as), 100*float64(hit)/float64(len(as)))
		if floor := holdoutFloor[name]; hit*100 < len(as)*floor {
			t.Errorf("%s: %d of %d held-out passages flagged; want at least %d%%", name, hit, len(as), floor)
		}
	}
}

// TestAttackCorpusDisguised: every flagged passage stays flagged when a
// page writes it with look-alike letters, fullwidth letters, zero-width
// characters, combining marks, variation selectors or letter-spacing.
func TestAttackCorpusDisguised(t *testing.T) {
	disguises := map[string]func(string) string{
		"homoglyphs": homoglyphs,
		"fullwidth":  fullwidth,
		"zero-width": func(s string) string { return between(s, "\u200b") },
		"combining":  func(s string) string { return between(s, "\u0336") },
		"variation":  func(s string) string { return between(s, "\ufe0f") },
		"letter-spaced": func(s string) string {
			return between(strings.ReplaceAll(s, " ", "  "), " ")
		},
	}
	var base []attack
	for _, a := range attacks(t) {
		if flagged(a.text).Total > 0 {
			base = append(base, a)
		}
	}
	for name, d := range disguises {
		kept := 0
		var lost []string
		for _, a := range base {
			if flagged(d(a.text)).Total > 0 {
				kept++
			} else {
				lost = append(lost, a.text)
			}
		}
		t.Logf("%-13s %d of %d flagged passages still flagged", name, kept, len(base))
		if kept*100 < len(base)*97 {
			t.Errorf("%s: %d of %d still flagged; want at least 97%%; lost e.g. %q", name, kept, len(base), lost[:min(3, len(lost))])
		}
	}
}

// benignMinLines is the least the benign corpus may hold.
const benignMinLines = 20000

// TestBenignCorpus: ordinary documentation — the doc comments and
// documents of the Go distribution this test runs with, and the manual
// pages installed on the machine — and the interface text of
// testdata/ok.txt are flagged at most 0.1 times per 1,000 lines. It says
// which sources it read and fails when they hold fewer than 20,000 lines.
func TestBenignCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the Go distribution's sources")
	}
	var srcs []benignSource
	srcs = append(srcs, goDocComments(t, 60000))
	srcs = append(srcs, goDocuments(t))
	srcs = append(srcs, manPages(t, 20000))
	srcs = append(srcs, pythonDocstrings(t, 30000))
	srcs = append(srcs, markdownDocs(t, "/usr/lib/node_modules", 30000))
	srcs = append(srcs, benignSource{name: "testdata/ok.txt", paras: okLines(t)})
	srcs = append(srcs, benignSource{name: "testdata/ui.txt", paras: corpus(t, "ui.txt")})
	total, flags := 0, 0
	var shown []string
	for _, s := range srcs {
		n, f, ex := s.scan()
		t.Logf("benign source %-42s %6d lines, %d flags", s.name, n, f)
		total += n
		flags += f
		shown = append(shown, ex...)
	}
	per := 1000 * float64(flags) / float64(max(total, 1))
	t.Logf("BENIGN CORPUS: %d lines, %d flags (%.3f per 1,000 lines)", total, flags, per)
	for _, e := range shown[:min(len(shown), 40)] {
		t.Logf("flagged: %s", e)
	}
	if total < benignMinLines {
		t.Fatalf("the benign corpus holds %d lines; want at least %d (is the Go distribution at %s?)", total, benignMinLines, runtime.GOROOT())
	}
	if per > 0.1 {
		t.Errorf("%.3f flags per 1,000 lines of ordinary text; want at most 0.1", per)
	}
}

// benignSource is text from one source, as paragraphs (each scanned as a
// page would carry it) and the lines they came from.
type benignSource struct {
	name  string
	paras []string
	lines int
}

func (s benignSource) scan() (lines, flags int, shown []string) {
	lines = s.lines
	if lines == 0 {
		lines = len(s.paras)
	}
	for _, p := range s.paras {
		r := flagged(p)
		flags += r.Total
		for _, f := range r.Findings {
			shown = append(shown, fmt.Sprintf("[%s] (%s) %s", s.name, f.Reason, f.Excerpt))
		}
	}
	return lines, flags, shown
}

func okLines(t *testing.T) []string {
	var out []string
	for _, l := range corpus(t, "ok.txt") {
		if _, text, ok := strings.Cut(l, "\t"); ok {
			l = text
		}
		out = append(out, l)
	}
	return out
}

// goDocComments reads the doc comments of the Go distribution's packages
// (GOROOT/src, tests and testdata left out), in path order, until max
// lines: each comment paragraph is one passage.
func goDocComments(t *testing.T, maxLines int) benignSource {
	root := filepath.Join(runtime.GOROOT(), "src")
	s := benignSource{name: "Go doc comments (" + root + ")"}
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	fset := token.NewFileSet()
	for _, p := range files {
		if s.lines >= maxLines {
			break
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		var docs []*ast.CommentGroup
		docs = append(docs, f.Doc)
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				docs = append(docs, x.Doc)
				return false
			case *ast.GenDecl:
				docs = append(docs, x.Doc)
			case *ast.TypeSpec:
				docs = append(docs, x.Doc)
			case *ast.ValueSpec:
				docs = append(docs, x.Doc)
			case *ast.Field:
				docs = append(docs, x.Doc)
			}
			return true
		})
		for _, d := range docs {
			if d == nil {
				continue
			}
			text := d.Text()
			s.lines += strings.Count(text, "\n")
			s.paras = append(s.paras, paragraphs(text)...)
		}
	}
	if len(files) == 0 {
		t.Logf("no Go sources under %s", root)
	}
	return s
}

// paragraphs splits text at blank lines, each paragraph on one line.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// goDocuments reads the prose documents of the Go distribution
// (GOROOT/doc: the specification, the memory model, …), HTML tags
// removed.
func goDocuments(t *testing.T) benignSource {
	dir := filepath.Join(runtime.GOROOT(), "doc")
	s := benignSource{name: "Go documents (" + dir + ")"}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() || !(strings.HasSuffix(e.Name(), ".html") || strings.HasSuffix(e.Name(), ".md")) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		text := tagRE.ReplaceAllString(string(raw), "")
		s.lines += strings.Count(text, "\n")
		s.paras = append(s.paras, paragraphs(text)...)
	}
	return s
}

var troffRE = regexp.MustCompile(`\\f[BIRP]|\\f\([A-Z]{2}|\\f\[[A-Z]*\]|\\\(..|\\\[[a-z]+\]|\\[-&|^e%]|\\s[-+]?\d`)

// manPages reads the manual pages installed under /usr/share/man
// (sections 1, 5, 7 and 8, English), troff requests removed, in name
// order until max lines.
func manPages(t *testing.T, maxLines int) benignSource {
	s := benignSource{name: "manual pages (/usr/share/man)"}
	var files []string
	for _, sec := range []string{"man1", "man5", "man7", "man8"} {
		m, _ := filepath.Glob(filepath.Join("/usr/share/man", sec, "*.gz"))
		files = append(files, m...)
	}
	sort.Strings(files)
	for _, p := range files {
		if s.lines >= maxLines {
			break
		}
		raw, err := readGzip(p)
		if err != nil {
			continue
		}
		var b strings.Builder
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'"):
				if rest, ok := strings.CutPrefix(l, ".SH "); ok {
					b.WriteString("\n\n" + strings.Trim(rest, `"`) + "\n\n")
				} else if strings.HasPrefix(l, ".PP") || strings.HasPrefix(l, ".TP") || strings.HasPrefix(l, ".IP") || strings.HasPrefix(l, ".P") {
					b.WriteString("\n\n")
				} else if rest, ok := strings.CutPrefix(l, ".B "); ok {
					b.WriteString(strings.Trim(rest, `"`) + "\n")
				} else if rest, ok := strings.CutPrefix(l, ".I "); ok {
					b.WriteString(strings.Trim(rest, `"`) + "\n")
				}
			default:
				b.WriteString(troffRE.ReplaceAllString(l, "") + "\n")
				s.lines++
			}
		}
		s.paras = append(s.paras, paragraphs(b.String())...)
	}
	if len(files) == 0 {
		t.Log("no manual pages under /usr/share/man")
	}
	return s
}

func readGzip(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(z, 4<<20))
}

var docstringRE = regexp.MustCompile(`(?s)"""(.*?)"""|'\''\''\''(.*?)'\''\''\''`)

// pythonDocstrings reads the docstrings of the Python standard library
// installed on the machine (/usr/lib/python3.*), in path order, until max
// lines.
func pythonDocstrings(t *testing.T, maxLines int) benignSource {
	s := benignSource{name: "Python docstrings (/usr/lib/python3.*)"}
	dirs, _ := filepath.Glob("/usr/lib/python3.*")
	var files []string
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if e.IsDir() && (e.Name() == "test" || e.Name() == "tests" || e.Name() == "site-packages" || e.Name() == "dist-packages") {
				return filepath.SkipDir
			}
			if strings.HasSuffix(p, ".py") {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	for _, p := range files {
		if s.lines >= maxLines {
			break
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, m := range docstringRE.FindAllStringSubmatch(string(raw), -1) {
			text := m[1] + m[2]
			s.lines += strings.Count(text, "\n") + 1
			s.paras = append(s.paras, paragraphs(text)...)
		}
	}
	if len(files) == 0 {
		t.Log("no Python standard library under /usr/lib/python3.*")
	}
	return s
}

// markdownDocs reads the Markdown documents under dir (Node's npm and its
// packages ship theirs), code blocks left out, in path order, until max
// lines.
func markdownDocs(t *testing.T, dir string, maxLines int) benignSource {
	s := benignSource{name: "Markdown docs (" + dir + ")"}
	var files []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(strings.ToLower(p), ".md") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, p := range files {
		if s.lines >= maxLines {
			break
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var b strings.Builder
		code := false
		for _, l := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "```") {
				code = !code
				continue
			}
			if !code {
				b.WriteString(l + "\n")
				s.lines++
			}
		}
		s.paras = append(s.paras, paragraphs(b.String())...)
	}
	if len(files) == 0 {
		t.Logf("no Markdown documents under %s", dir)
	}
	return s
}

// familyReasons maps the family names of the attack corpus to reasons.
var familyReasons = map[string]string{
	"ignore": ReasonIgnore, "role": ReasonRole, "impersonate": ReasonImpersonate, "addressed": ReasonAddressed,
	"authority": ReasonAuthority, "tool": ReasonTool, "money": ReasonMoney, "send": ReasonSend, "hijack": ReasonHijack,
	"task": ReasonTask, "account": ReasonAccount, "approve": ReasonApprove, "policy": ReasonPolicy, "reveal": ReasonReveal,
}
