package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestLargePageIsGenerated keeps testdata/pages/large.html in step with
// this generator (regenerate with the command in the package doc).
func TestLargePageIsGenerated(t *testing.T) {
	var b bytes.Buffer
	page(&b)
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "pages", "large.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatal("testdata/pages/large.html is stale: go run ./internal/snapshot/gen > testdata/pages/large.html")
	}
	if n := bytes.Count(want, []byte("<")) - bytes.Count(want, []byte("</")); n < 2800 || n > 3400 {
		t.Errorf("large.html has about %d elements, want ~3,000", n)
	}
}
