package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// conformanceScenarios are the official suite's scenarios that apply to
// any server (../shared/tools/mcp-conformance/README.md).
var conformanceScenarios = []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection", "logging-set-level"}

// TestConformance runs the official MCP conformance suite against /mcp of
// a real daemon, through tokenProxy. It needs Node and the npm registry on
// first run, so it runs when GASOLINE_CONFORMANCE=1 (make conformance).
func TestConformance(t *testing.T) {
	if os.Getenv("GASOLINE_CONFORMANCE") != "1" {
		t.Skip("set GASOLINE_CONFORMANCE=1 (make conformance) to run the official MCP conformance suite")
	}
	runSh := os.Getenv("MCP_CONFORMANCE_RUN")
	if runSh == "" {
		runSh, _ = filepath.Abs("../../../shared/tools/mcp-conformance/run.sh")
	}
	if _, err := os.Stat(runSh); err != nil {
		t.Fatalf("conformance runner: %v (set MCP_CONFORMANCE_RUN)", err)
	}
	d := startDaemon(t)
	proxy := httptest.NewServer(tokenProxy(d))
	defer proxy.Close()
	port := proxy.URL[strings.LastIndex(proxy.URL, ":")+1:]
	// The suite addresses the server by both loopback names a user's
	// client may use.
	for _, host := range []string{"localhost", "127.0.0.1"} {
		for _, sc := range conformanceScenarios {
			t.Run(host+"/"+sc, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				endpoint := "http://" + host + ":" + port + "/mcp"
				out, err := exec.CommandContext(ctx, "bash", runSh, "server", "--url", endpoint, "--scenario", sc).CombinedOutput()
				t.Logf("%s", out)
				if err != nil {
					t.Fatalf("scenario %s failed: %v", sc, err)
				}
				if !strings.Contains(string(out), " 0 failed") || strings.Contains(string(out), "FAILURE") {
					t.Fatalf("scenario %s did not pass", sc)
				}
			})
		}
	}
}

// tokenProxy forwards to the daemon adding the agent credential — the
// suite sends none — and nothing else: Host, Origin and every other header
// reach the daemon exactly as the suite sent them, so the daemon's own
// DNS-rebinding and Origin checks are what the suite tests.
func tokenProxy(d *daemon) http.Handler {
	target, _ := url.Parse(d.url(""))
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+d.token)
		},
		FlushInterval: -1, // stream SSE as it comes
	}
}
