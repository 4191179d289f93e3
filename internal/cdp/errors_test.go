package cdp

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

func TestChromeTexts(t *testing.T) {
	for _, tc := range []struct {
		err  error
		gone bool
		nav  bool
	}{
		{&protocol.Error{Code: protocol.CodeCDPError, Message: "Cannot find context with specified id"}, true, true},
		{errors.New("Not attached to an active page"), false, true},
		{&protocol.Error{Code: protocol.CodeTabClosed, Message: "tab 3 does not exist or was closed"}, false, false},
		{nil, false, false},
	} {
		if Gone(tc.err) != tc.gone || Navigating(tc.err) != tc.nav {
			t.Errorf("%v: gone %v navigating %v", tc.err, Gone(tc.err), Navigating(tc.err))
		}
	}
	if !NoBody(errors.New("cdp_error: No resource with given identifier found")) || NoDialog(nil) {
		t.Error("NoBody / NoDialog")
	}
}

// TestOnlyThisFileReadsErrorWords: outside this package's errors.go, no Go
// code of the daemon branches on an error's words — a string test
// (strings.Contains, HasPrefix, HasSuffix, Index, EqualFold, ==) on
// err.Error(), on a .Message or on a .msg. Gasoline's own errors and the
// extension's carry codes for that; Chrome's CDP texts are read here.
func TestOnlyThisFileReadsErrorWords(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			path == filepath.Join(root, "internal", "cdp", "errors.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && isPkg(sel.X, "strings") && textTests[sel.Sel.Name] && len(n.Args) > 0 && errorWords(n.Args[0]) {
					t.Errorf("%s: strings.%s on an error's words; branch on its code", fset.Position(n.Pos()), sel.Sel.Name)
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (errorWords(n.X) || errorWords(n.Y)) && !empty(n.X) && !empty(n.Y) &&
					!notAnError[filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))] {
					t.Errorf("%s: comparing an error's words; branch on its code", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files: the walk missed the tree", checked)
	}
}

// notAnError are files whose .Message is not an error's: the go-sdk's log
// record (its text is the SDK's, not ours, and it is only hidden).
var notAnError = map[string]bool{"internal/mcpserver/logging.go": true}

// empty reports the literal "" (a test that words are there at all).
func empty(x ast.Expr) bool {
	l, ok := x.(*ast.BasicLit)
	return ok && l.Value == `""`
}

var textTests = map[string]bool{"Contains": true, "HasPrefix": true, "HasSuffix": true, "Index": true, "EqualFold": true, "ContainsAny": true}

func isPkg(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// errorWords reports an expression that is an error's words: x.Error(),
// x.Message, x.msg.
func errorWords(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Error" && len(x.Args) == 0
	case *ast.SelectorExpr:
		return x.Sel.Name == "Message" || x.Sel.Name == "msg"
	}
	return false
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
