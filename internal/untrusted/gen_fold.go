//go:build ignore

// gen_fold writes fold_table.go from testdata/unicode/confusables.txt
// (go generate; see internal/foldgen).
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/untrusted/internal/foldgen"
)

func main() {
	f, err := os.Open("testdata/unicode/confusables.txt")
	if err != nil {
		log.Fatal(err)
	}
	proto, err := foldgen.Confusables(f)
	f.Close()
	if err != nil {
		log.Fatal(err)
	}
	src, err := foldgen.Source(foldgen.Ranges(foldgen.Build(proto)))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("fold_table.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(os.Stderr, "wrote fold_table.go")
}
