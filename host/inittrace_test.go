//go:build unix

package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every mode of gasoline-host is one binary, so Go initialises every
// package it links at every start — the stdio relay's too, and that start
// is on an agent's clock (spawn → initialize answered). The relay's own
// packages may prepare what they use; every other package of ours must
// leave its regexps, scripts and tables to first use (sync.OnceValue),
// keeping to a few error values and small maps at init.
const (
	initBudgetPerPackage = 8 << 10  // bytes a package outside the relay may allocate at init
	initBudgetTotal      = 32 << 10 // all of them together
)

// initExempt are packages outside the stdio relay's imports allowed more,
// and why.
var initExempt = map[string]string{
	"github.com/gasoline-mcp/gasoline/internal/redact": "the native host redacts every frame it relays with these tables from its first message",
}

// TestRelayStartInitialisesNoDaemonPackage runs this binary with the
// runtime's init trace (GODEBUG=inittrace=1) and checks what each package
// of ours allocated before main: counted bytes, not time, so it cannot
// flake.
func TestRelayStartInitialisesNoDaemonPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/gasoline-mcp/gasoline/internal/mcprelay").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	relay := map[string]bool{}
	for p := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		relay[p] = true
	}
	cmd := exec.Command(os.Args[0], "version")
	cmd.Env = append(os.Environ(), "GASOLINE_HOST_TEST_EXEC=1", "GODEBUG=inittrace=1")
	trace, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, trace)
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @.*?, (\d+) bytes, (\d+) allocs$`)
	seen, total := 0, 0
	for _, m := range line.FindAllStringSubmatch(string(trace), -1) {
		pkg := m[1]
		if !strings.HasPrefix(pkg, "github.com/gasoline-mcp/gasoline/") || relay[pkg] {
			continue
		}
		seen++
		bytes, _ := strconv.Atoi(m[2])
		if initExempt[pkg] != "" {
			continue
		}
		total += bytes
		if bytes > initBudgetPerPackage {
			t.Errorf("%s allocates %d bytes (%s allocs) at init, past %d: build its regexps, scripts or tables on first use (sync.OnceValue)",
				pkg, bytes, m[3], initBudgetPerPackage)
		}
	}
	if seen == 0 {
		t.Fatalf("no package of ours in the init trace; the trace format changed?\n%.2000s", trace)
	}
	if total > initBudgetTotal {
		t.Errorf("the packages outside the relay allocate %d bytes at init together, past %d", total, initBudgetTotal)
	}
}
