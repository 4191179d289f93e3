// Command slowsite serves testdata/ and the developer-tools fixtures
// (internal/slowsite) on 127.0.0.1 for bench/lcp.mjs. It prints its
// origin on the first line of stdout and serves until stdin closes.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/slowsite"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "slowsite:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	root := "testdata"
	if len(args) > 0 {
		root = args[0]
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Clean(root))))
	slowsite.Register(mux)
	fmt.Printf("http://%s\n", ln.Addr())
	go http.Serve(ln, mux)
	io.Copy(io.Discard, os.Stdin) // the parent closes stdin to stop it
	return ln.Close()
}
