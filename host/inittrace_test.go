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
// package it links at every start. Agents' configs now run gasoline-mcp,
// the stdio relay alone (mcp/, which links none of the daemon's packages:
// mcp/imports_test.go), but gasoline-host starts on other clocks still:
// the native host at every connection Chrome opens, `gasoline-host --mcp`
// for configs written before gasoline-mcp, and the CLI modes a user runs.
// The relays' own packages may prepare what they use; every other package
// of ours must leave its regexps, scripts and tables to first use
// (sync.OnceValue), keeping to a few error values and small maps at init.
const (
	initBudgetPerPackage = 8 << 10  // bytes a package outside the relay may allocate at init
	initBudgetTotal      = 32 << 10 // all of them together
)

// initExempt are packages outside the stdio relay's imports allowed more,
// and why. A library's init cannot be deferred from here: each entry is
// paid at every start of every mode (BenchmarkStart/exec).
var initExempt = map[string]string{
	"github.com/gasoline-mcp/gasoline/internal/redact": "the native host redacts every frame it relays with these tables from its first message",
	"github.com/google/jsonschema-go/jsonschema":       "the go-sdk's schemas and the page tools' validator (81 KB)",
	"github.com/kardianos/service":                     "its init detects the init system (stats PATH, reads /proc/1/comm; 73 KB)",
	"encoding/gob":                                     "imported by the go-sdk",
	"encoding/xml":                                     "the service's launchd plist",
	"runtime/metrics":                                  "the memory report's runtime metrics",
}

// TestRelayStartInitialisesNoDaemonPackage runs this binary with the
// runtime's init trace (GODEBUG=inittrace=1) and checks what each package
// outside the relay's imports — ours, the standard library's and
// third-party ones — allocated before main: counted bytes, not time, so
// it cannot flake.
func TestRelayStartInitialisesNoDaemonPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	relay, host := deps(t, "github.com/gasoline-mcp/gasoline/internal/mcprelay"), deps(t, ".")
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
		// The relay's own, the test binary's, and this package (its init
		// here carries the tests' variables).
		if relay[pkg] || !host[pkg] || pkg == "github.com/gasoline-mcp/gasoline/host" {
			continue
		}
		ours := strings.HasPrefix(pkg, "github.com/gasoline-mcp/gasoline/")
		if ours {
			seen++
		}
		bytes, _ := strconv.Atoi(m[2])
		if initExempt[pkg] != "" {
			continue
		}
		if ours {
			total += bytes
		}
		switch {
		case bytes <= initBudgetPerPackage:
		case ours:
			t.Errorf("%s allocates %d bytes (%s allocs) at init, past %d: build its regexps, scripts or tables on first use (sync.OnceValue)",
				pkg, bytes, m[3], initBudgetPerPackage)
		default:
			t.Errorf("%s allocates %d bytes (%s allocs) at init, past %d: a library's init runs at every start of every mode "+
				"(BenchmarkStart/exec); use another, or list it in initExempt with what it costs",
				pkg, bytes, m[3], initBudgetPerPackage)
		}
	}
	if seen == 0 {
		t.Fatalf("no package of ours in the init trace; the trace format changed?\n%.2000s", trace)
	}
	if total > initBudgetTotal {
		t.Errorf("our packages outside the relay allocate %d bytes at init together, past %d", total, initBudgetTotal)
	}
}

// deps lists the packages pkg imports, itself included (go list -deps).
func deps(t *testing.T, pkg string) map[string]bool {
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	set := map[string]bool{}
	for p := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		set[p] = true
	}
	return set
}
