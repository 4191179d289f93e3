package e2e

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// hostBin is the gasoline-host built for this run, and slimBin the
// gasoline-mcp beside it.
var hostBin, slimBin string

// TestMain builds gasoline-host and gasoline-mcp once, runs the tests, and fails the run
// when a goroutine of this process outlives them. The browser, the native
// hosts and any daemon they spawn are child processes: their goroutines are
// not this process's, and each test's cleanup ends those processes
// (testbrowser.Stop, Chain.killSpawnedDaemon).
func TestMain(m *testing.M) {
	if os.Getenv("GASOLINE_E2E_AS_CLIENT") != "" { // TestE2EClientAsAnotherUser's client, run as that user
		os.Exit(asClient())
	}
	dir, err := os.MkdirTemp("", "gasoline-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hostBin, err = BuildHost(dir)
	if err == nil {
		slimBin, err = BuildSlim(dir)
	}
	if err == nil {
		err = EnsureVendor()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}
