//go:build unix

package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRelaysImportNoDaemonPackage: the two relays — the native host (frames
// between Chrome and the daemon) and the stdio relay (lines between an MCP
// client and the daemon) — must not pull in the daemon's machinery (CDP
// types, the MCP SDK, the browser engines). All modes are one binary, so
// those packages are linked anyway (TestRelayStartInitialisesNoDaemonPackage
// keeps their initialisation small), but what a relay imports is what it
// runs and keeps resident.
func TestRelaysImportNoDaemonPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	forbidden := []string{
		"github.com/chromedp/cdproto",
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/kardianos/service",
		"github.com/gasoline-mcp/gasoline/bridge",
		"github.com/gasoline-mcp/gasoline/internal/mcpserver",
		"github.com/gasoline-mcp/gasoline/internal/tools",
		"github.com/gasoline-mcp/gasoline/internal/actions",
		"github.com/gasoline-mcp/gasoline/internal/snapshot",
		"github.com/gasoline-mcp/gasoline/internal/observe",
		"github.com/gasoline-mcp/gasoline/internal/capture",
		"github.com/gasoline-mcp/gasoline/internal/analyze",
		"github.com/gasoline-mcp/gasoline/internal/session",
	}
	for _, relay := range []string{"internal/nativehost", "internal/mcprelay"} {
		out, err := exec.Command("go", "list", "-deps", "github.com/gasoline-mcp/gasoline/"+relay).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", relay, err)
		}
		for dep := range strings.SplitSeq(string(out), "\n") {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s imports %s (through its dependencies); a relay must not", relay, dep)
				}
			}
		}
	}
}
