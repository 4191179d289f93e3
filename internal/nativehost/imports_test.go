package nativehost

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRelayImportsStayLean: the native host frames and relays; it must not
// pull in the daemon's machinery (CDP types, the MCP SDK, the browser
// engines). All modes are one binary, so those packages are linked anyway,
// but what the relay imports is what it runs and keeps resident.
func TestRelayImportsStayLean(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []string{
		"github.com/chromedp/cdproto",
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/gasoline-mcp/gasoline/bridge",
		"github.com/gasoline-mcp/gasoline/internal/mcpserver",
		"github.com/gasoline-mcp/gasoline/internal/tools",
		"github.com/gasoline-mcp/gasoline/internal/actions",
		"github.com/gasoline-mcp/gasoline/internal/snapshot",
		"github.com/gasoline-mcp/gasoline/internal/observe",
		"github.com/gasoline-mcp/gasoline/internal/capture",
	}
	for dep := range strings.SplitSeq(string(out), "\n") {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("internal/nativehost imports %s (through its dependencies); the relay must not", dep)
			}
		}
	}
}
