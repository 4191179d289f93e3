package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// roots are the repository's top-level directories: a name in a document
// that starts with one of them is a path of the repository.
var roots = []string{"bench", "bridge", "docs", "extension", "host", "installer", "internal", "manifests", "mk", "scripts", "testdata", "tools"}

// notPaths are names that look like paths and are not: MCP methods.
var notPaths = map[string]bool{"tools/list": true, "tools/call": true}

var (
	quoted = regexp.MustCompile("`([^`\n]+)`")
	linked = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// TestEveryDocPathExists: every repository path docs/*.md and README.md
// name — in backquotes or as a link — exists. A name with a placeholder
// (<date>, *, {a,b}, …) is a pattern, not checked; a Go identifier after
// a package path (internal/launcher.Ensure) is the package's.
func TestEveryDocPathExists(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) < 5 {
		t.Fatalf("docs/*.md: %v (%d files)", err, len(docs))
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	checked := 0
	for _, doc := range docs {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			for _, name := range names(line) {
				checked++
				if !exists(root, name) {
					t.Errorf("%s:%d names %s, which is not in the repository", filepath.Base(doc), i+1, name)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d names: the patterns no longer find the docs' paths", checked)
	}
}

// names are the repository paths a line names.
func names(line string) []string {
	var out []string
	var cands []string
	for _, m := range quoted.FindAllStringSubmatch(line, -1) {
		cands = append(cands, strings.Fields(m[1])...)
	}
	for _, m := range linked.FindAllStringSubmatch(line, -1) {
		cands = append(cands, m[1])
	}
	for _, c := range cands {
		c = strings.TrimRight(strings.TrimPrefix(c, "./"), ".,;:)")
		c, _, _ = strings.Cut(c, "#")
		if notPaths[c] || strings.ContainsAny(c, "<>*{}…$~") || !strings.Contains(c, "/") {
			continue
		}
		top, _, _ := strings.Cut(c, "/")
		for _, r := range roots {
			if top == r {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// exists reports a path of the repository, or a Go package path followed
// by one of its identifiers, or a file followed by :line.
func exists(root, name string) bool {
	if file, _, ok := strings.Cut(name, ":"); ok {
		name = file
	}
	if _, err := os.Stat(filepath.Join(root, name)); err == nil {
		return true
	}
	dir, ident, ok := strings.Cut(filepath.Base(name), ".")
	if !ok || ident == "" || !unicode.IsUpper(rune(ident[0])) {
		return false
	}
	_, err := os.Stat(filepath.Join(root, filepath.Dir(name), dir))
	return err == nil
}
