package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSlimLinksNoDaemonPackage: gasoline-mcp is the stdio relay alone; its
// start is on an agent's clock (spawn → initialize answered), and every
// package it links is initialised at every start. None of the daemon's
// packages, the MCP SDK, the service manager, the installer or doctor may
// creep back in through an import; nor may net/http or crypto/tls (their
// package inits cost ~0.3 ms of every start: the relay's link and the
// launcher's requests are written on net alone), nor the WebSocket library
// that would bring them.
func TestSlimLinksNoDaemonPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	forbidden := []string{
		"github.com/gasoline-mcp/gasoline/bridge",
		"github.com/gasoline-mcp/gasoline/host",
		"github.com/modelcontextprotocol/go-sdk",
		"github.com/kardianos/service",
		"github.com/chromedp/cdproto",
		"github.com/google/jsonschema-go",
		"encoding/gob",
		"runtime/metrics",
		"github.com/gasoline-mcp/gasoline/internal/service",
		"github.com/gasoline-mcp/gasoline/internal/install",
		"github.com/gasoline-mcp/gasoline/internal/doctor",
		"github.com/gasoline-mcp/gasoline/internal/mcpserver",
		"github.com/gasoline-mcp/gasoline/internal/mcpconfig",
		"github.com/gasoline-mcp/gasoline/internal/nativehost",
		"github.com/gasoline-mcp/gasoline/internal/tools",
		"github.com/gasoline-mcp/gasoline/internal/session",
		"github.com/gasoline-mcp/gasoline/internal/redact",
		"net/http",
		"crypto/tls",
		"crypto/x509",
		"github.com/coder/websocket",
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "github.com/gasoline-mcp/gasoline/internal/mcprelay\n") {
		t.Fatalf("go list -deps listed %d packages, without internal/mcprelay: %.500s", len(deps), out)
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("gasoline-mcp links %s; it must link only the stdio relay (internal/mcprelay and what it needs)", dep)
			}
		}
	}
}
