// Package testbrowser starts Debian's Chromium for end-to-end tests the way
// ../shared/guides/E2E-CHROMIUM.md measured it: headless, the unpacked
// extension loaded, a fresh profile, and network hygiene so that nothing
// but loopback is ever contacted. Tests only: the product never launches a
// browser.
package testbrowser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// DefaultBinary is the real Chromium binary (not the /usr/bin wrapper).
const DefaultBinary = "/usr/lib/chromium/chromium"

// Binary returns the Chromium to use ($CHROMIUM overrides). Missing, it
// skips the test — except in CI (CI=true), where a missing browser fails.
func Binary(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("CHROMIUM")
	if bin == "" {
		bin = DefaultBinary
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("Chromium not found at %s: CI requires it (make chromium installs it)", bin)
		}
		tb.Skipf("Chromium not found at %s; run `make chromium` (or set CHROMIUM)", bin)
	}
	return bin
}

// Options describes one browser.
type Options struct {
	ExtensionDir string   // unpacked extension to load (required)
	UserDataDir  string   // profile dir; default a fresh temp dir
	Env          []string // extra environment (reaches the native host)
	URL          string   // first page; default about:blank
	LogPath      string   // Chromium's stderr; default <UserDataDir>/chromium.log
	ExtraArgs    []string // more flags, e.g. --remote-debugging-port=0 for benchmarks
	// WebMCPOff starts the browser without WebMCP (Args turns it on, as
	// users who try page tools do), to test what an agent is told then.
	WebMCPOff bool
}

// Browser is a running Chromium.
type Browser struct {
	Cmd         *exec.Cmd
	UserDataDir string
	LogPath     string
	exited      chan struct{}
}

// Start launches Chromium and registers its stop with tb.Cleanup.
func Start(tb testing.TB, opts Options) *Browser {
	tb.Helper()
	bin := Binary(tb)
	if opts.UserDataDir == "" {
		opts.UserDataDir = tb.TempDir()
	}
	if opts.URL == "" {
		opts.URL = "about:blank"
	}
	if opts.LogPath == "" {
		opts.LogPath = filepath.Join(opts.UserDataDir, "chromium.log")
	}
	if err := SeedProfile(opts.UserDataDir); err != nil {
		tb.Fatal(err)
	}
	logf, err := os.Create(opts.LogPath)
	if err != nil {
		tb.Fatal(err)
	}
	args := Args(opts.UserDataDir, opts.ExtensionDir, opts.URL)
	args = append(args[:len(args)-1:len(args)-1], append(opts.ExtraArgs, opts.URL)...)
	args = features(args, opts.WebMCPOff)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), opts.Env...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = groupAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		tb.Fatalf("starting Chromium: %v", err)
	}
	b := &Browser{Cmd: cmd, UserDataDir: opts.UserDataDir, LogPath: opts.LogPath, exited: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(b.exited) }()
	tb.Cleanup(func() {
		if err := b.Stop(10 * time.Second); err != nil {
			tb.Log(err)
		}
		if tb.Failed() {
			if log, err := os.ReadFile(opts.LogPath); err == nil {
				tb.Logf("Chromium log (%s):\n%s", opts.LogPath, tail(log, 8000))
			}
		}
	})
	return b
}

// Stop sends SIGTERM to the browser process (a clean exit; killing the
// whole group logs zygote errors) and waits, killing it after bound, then
// waits (bounded) for its helpers and the native host it launched to exit.
func (b *Browser) Stop(bound time.Duration) error {
	defer waitReleased(b.Cmd.Process.Pid, b.UserDataDir, bound)
	select {
	case <-b.exited:
		return nil
	default:
	}
	if runtime.GOOS != "windows" {
		b.Cmd.Process.Signal(syscall.SIGTERM)
	} else {
		b.Cmd.Process.Kill()
	}
	select {
	case <-b.exited:
		return nil
	case <-time.After(bound):
		b.Cmd.Process.Kill()
		<-b.exited
		return errors.New("testbrowser: Chromium ignored SIGTERM; killed")
	}
}

// Exited is closed when the browser process has exited.
func (b *Browser) Exited() <-chan struct{} { return b.exited }

// Args are the measured flags from E2E-CHROMIUM.md.
func Args(userDataDir, extDir, url string) []string {
	return []string{
		"--headless=new", "--no-sandbox",
		"--user-data-dir=" + userDataDir,
		"--load-extension=" + extDir,
		"--disable-extensions-except=" + extDir,
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-quic", "--disable-default-apps",
		"--disable-domain-reliability", "--disable-client-side-phishing-detection",
		"--metrics-recording-only", "--no-pings", "--disable-breakpad",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
		"--disable-features=NetworkTimeServiceQuerying",
		"--enable-features=" + webMCPFeature,
		"--component-updater=url-source=http://127.0.0.1:1/",
		"--enable-logging=stderr", "--v=0",
		url,
	}
}

// webMCPFeature turns on document.modelContext and the DevTools WebMCP
// domain (what chrome://flags/#enable-webmcp-testing does): every
// end-to-end run has it, so page tools are tested and everything else is
// tested with it on, as a user who tries page tools runs Chrome.
const webMCPFeature = "WebMCP"

// features folds every --enable-features flag into one (Chromium reads
// only the last one given), dropping WebMCP when off.
func features(args []string, webMCPOff bool) []string {
	const flag = "--enable-features="
	var names []string
	out := make([]string, 0, len(args))
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag); ok {
			for _, n := range strings.Split(v, ",") {
				if n != "" && !(webMCPOff && n == webMCPFeature) && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			continue
		}
		out = append(out, a)
	}
	if len(names) == 0 {
		return out
	}
	url := out[len(out)-1] // the first page stays last
	return append(append(out[:len(out)-1:len(out)-1], flag+strings.Join(names, ",")), url)
}

// SeedProfile writes the Preferences that stop Chromium probing public
// resolvers after a failed lookup.
func SeedProfile(userDataDir string) error {
	dir := filepath.Join(userDataDir, "Default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	p := filepath.Join(dir, "Preferences")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	return os.WriteFile(p, []byte(`{"alternate_error_pages":{"enabled":false}}`), 0o600)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return fmt.Sprintf("...%s", b)
}
