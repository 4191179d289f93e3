// Package e2e holds Gasoline's end-to-end tests and benchmarks: real
// Debian Chromium (headless) with the unpacked extension, the real
// gasoline-host started by Chromium from a registered native-host manifest,
// and a real daemon. This file is the shared fixture.
package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/bridge"
	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/testbrowser"
)

// RepoRoot is the repository's top folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// BuildHost builds gasoline-host into dir and returns its path.
func BuildHost(dir string) (string, error) { return build(dir, "./host", "gasoline-host") }

// BuildSlim builds gasoline-mcp, the stdio relay agents' configs run, into
// dir (beside gasoline-host, where it starts the daemon from) and returns
// its path.
func BuildSlim(dir string) (string, error) { return build(dir, "./mcp", "gasoline-mcp") }

func build(dir, pkg, name string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as make build and make dist: static
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", name, err, b)
	}
	return out, nil
}

// EnsureVendor makes sure the extension's vendored libraries (axe-core,
// xterm.js; tools/vendor) are in extension/vendor, as `make vendor` does:
// the extension under test loads them.
func EnsureVendor() error {
	if _, err := os.Stat(filepath.Join(RepoRoot(), "extension", "vendor", "versions.json")); err == nil {
		return nil
	}
	cmd := exec.Command("bash", "tools/vendor/vendor.sh")
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("vendoring the extension's libraries (make vendor): %v\n%s", err, b)
	}
	return nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(tb testing.TB) int {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ServeTestdata serves testdata/ on 127.0.0.1 for the test's lifetime.
func ServeTestdata(tb testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(RepoRoot(), "testdata"))))
	tb.Cleanup(srv.Close)
	return srv
}

// Install registers the host for a Chromium profile with the product's own
// installer command.
func Install(tb testing.TB, hostBin, userDataDir string) {
	tb.Helper()
	cmd := exec.Command(hostBin, "install", "--browser", "chromium", "--user-data-dir", userDataDir)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("gasoline-host install: %v\n%s", err, b)
	}
}

// Chain is the real chain with the daemon running in this process, so
// tests can make daemon-side calls into the extension.
type Chain struct {
	Home    string
	Port    int
	Server  *bridge.Server
	Browser *testbrowser.Browser
	Pages   *httptest.Server
	Link    *extlink.Link

	stopDaemon func() error
}

// ChainOptions varies the chain. The zero value is StartChain's chain.
type ChainOptions struct {
	// Policy, when set, is written to $GASOLINE_HOME/policy.json before
	// the daemon starts (e.g. the local-dev policy that allows every call
	// on http://127.0.0.1:*).
	Policy string
	// RemoteDebugging launches Chromium with --remote-debugging-port=0 as
	// well, so a test can reach its targets directly (DevToolsActivePort).
	RemoteDebugging bool
	// ExtraArgs are added to Chromium's command line (e.g.
	// --ignore-certificate-errors for pages on a test TLS server).
	ExtraArgs []string
	// Files are written into $GASOLINE_HOME before the daemon starts:
	// relative path (slash-separated, inside the home) → content, each
	// file mode 0600 (e.g. "agent.json", which the daemon refuses wider).
	Files map[string]string
	// SessionTTL shortens how long the daemon keeps a session whose
	// client went away (0: the default).
	SessionTTL time.Duration
	// WebMCPOff starts Chromium without WebMCP (every other chain has it
	// on: testbrowser.Args).
	WebMCPOff bool
	// Env is added to Chromium's environment (e.g. HOME, to see where
	// the browser would put downloads).
	Env []string
}

// StartChain starts the daemon in-process, Chromium with the extension, and
// waits (bounded) for the extension to complete its handshake through the
// native host Chromium launched.
func StartChain(tb testing.TB, hostBin string) *Chain {
	return StartChainWith(tb, hostBin, ChainOptions{})
}

// StartChainWith is StartChain with options.
func StartChainWith(tb testing.TB, hostBin string, opts ChainOptions) *Chain {
	tb.Helper()
	c := &Chain{Home: tb.TempDir(), Port: FreePort(tb)}
	if opts.Policy != "" {
		if err := os.WriteFile(filepath.Join(c.Home, "policy.json"), []byte(opts.Policy), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	for rel, content := range opts.Files {
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			tb.Fatalf("ChainOptions.Files: %q is not a path inside GASOLINE_HOME", rel)
		}
		p := filepath.Join(c.Home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			tb.Fatal(err)
		}
		if err := os.Chmod(p, 0o600); err != nil { // whatever the umask
			tb.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *bridge.Server, 1)
	done := make(chan error, 1)
	go func() {
		done <- bridge.Run(ctx, bridge.Config{Dir: c.Home, Port: c.Port, Logger: testLogger(tb, c.Home), SessionTTL: opts.SessionTTL,
			Ready: func(s *bridge.Server) { ready <- s }})
	}()
	var once sync.Once
	var runErr error
	c.stopDaemon = func() error {
		once.Do(func() { cancel(); runErr = <-done })
		return runErr
	}
	tb.Cleanup(func() {
		if err := c.stopDaemon(); err != nil {
			tb.Errorf("daemon: %v", err)
		}
		c.killSpawnedDaemon()
	})
	select {
	case c.Server = <-ready:
	case err := <-done:
		tb.Fatalf("daemon did not start: %v", err)
	}
	c.Pages = ServeTestdata(tb)
	udd := tb.TempDir()
	Install(tb, hostBin, udd)
	var extra []string
	if opts.RemoteDebugging {
		extra = append(extra, "--remote-debugging-port=0")
	}
	extra = append(extra, opts.ExtraArgs...)
	c.Browser = testbrowser.Start(tb, testbrowser.Options{
		ExtensionDir: filepath.Join(RepoRoot(), "extension"),
		UserDataDir:  udd,
		Env:          append([]string{"GASOLINE_HOME=" + c.Home, "GASOLINE_PORT=" + strconv.Itoa(c.Port)}, opts.Env...),
		ExtraArgs:    extra,
		WebMCPOff:    opts.WebMCPOff,
	})
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	l, err := c.Server.Extensions().Wait(wctx)
	if err != nil {
		tb.Fatalf("extension never connected: %v", err)
	}
	c.Link = l
	return c
}

// killSpawnedDaemon stops a daemon a native host spawned in the chain's
// home after the in-process one stopped (a host that outlived the browser
// for a moment, or a test that restarted the daemon), so none outlives the
// test and its home can be removed.
func (c *Chain) killSpawnedDaemon() {
	st, err := state.Read(c.Home)
	if err != nil || st.PID == os.Getpid() {
		return
	}
	if p, err := os.FindProcess(st.PID); err == nil {
		p.Kill()
		p.Wait()
	}
}

// StopDaemon stops the in-process daemon (idempotent) and returns Run's
// error. The native host then finds no daemon and spawns one itself.
func (c *Chain) StopDaemon() error { return c.stopDaemon() }

// PageURL is the URL of a file under testdata/.
func (c *Chain) PageURL(path string) string { return c.Pages.URL + "/" + path }

// testLogger writes the in-process daemon's log to a file in its home.
func testLogger(tb testing.TB, home string) *slog.Logger {
	f, err := os.Create(filepath.Join(home, "daemon-test.log"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
