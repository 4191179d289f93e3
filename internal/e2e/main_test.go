package e2e

import (
	"fmt"
	"os"
	"testing"
)

// hostBin is the gasoline-host built for this run.
var hostBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gasoline-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hostBin, err = BuildHost(dir)
	if err == nil {
		err = EnsureVendor()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
