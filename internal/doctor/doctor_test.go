package doctor

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

func TestRedactionCheck(t *testing.T) {
	for _, tc := range []struct {
		name, file  string // file "" means no redaction.json
		want        Status
		detail, fix string
	}{
		{"default policy", "", OK, "built-in default", ""},
		{"a valid file", `{"version":"team/3"}`, OK, "policy team/3", ""},
		{"a broken file", `{"version":`, Fail, "", "fix or remove"},
		{"a file that switches masking off", `{"version":"off/1","disable":["bearer","github_token","card","password"]}`, Fail, "self-test failed", "disable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv(redact.EnvPolicy, "")
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, redact.FileName), []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := checkRedaction(Options{Dir: dir})
			if r.Status != tc.want || !strings.Contains(r.Detail, tc.detail) || !strings.Contains(r.Fix, tc.fix) {
				t.Fatalf("got %+v, want %s with detail ~%q and fix ~%q", r, tc.want, tc.detail, tc.fix)
			}
			if tc.want == Fail && !strings.Contains(r.Fix, filepath.Join(dir, redact.FileName)) {
				t.Fatalf("the fix does not name the file: %q", r.Fix)
			}
		})
	}
}

func TestDaemonDownFailsWithAFixAndSkipsTheRest(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing answers there now
	res := Run(context.Background(), Options{Dir: t.TempDir(), Port: port, Self: "/opt/gasoline-host",
		UserDataDir: t.TempDir()})
	byName := map[string]Result{}
	for _, r := range res {
		byName[r.Name] = r
	}
	if d := byName["daemon"]; d.Status != Fail || !strings.Contains(d.Fix, "/opt/gasoline-host daemon") {
		t.Errorf("daemon = %+v", d)
	}
	for _, name := range []string{"MCP stdio", "MCP HTTP", "extension"} {
		if byName[name].Status != Skip {
			t.Errorf("%s = %+v, want skip while the daemon is down", name, byName[name])
		}
	}
	if m := byName["manifest (chromium)"]; m.Status != Fail || m.Fix == "" {
		t.Errorf("manifest in an empty profile = %+v", m)
	}
	var out bytes.Buffer
	err = Report(&out, res)
	var fe *FailedError
	if !errors.As(err, &fe) || fe.Failed < 2 {
		t.Fatalf("Report = %v, want a FailedError counting the failures", err)
	}
	if !strings.Contains(out.String(), "fix: /opt/gasoline-host daemon") {
		t.Errorf("report does not print the fix:\n%s", out.String())
	}
}

// After a deliberate stop, doctor says so and names the start.
func TestDaemonStoppedOnPurpose(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	if err := state.MarkStopped(dir, state.Stop{By: "gasoline-host service stop"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range Run(context.Background(), Options{Dir: dir, Port: port, Self: "/opt/gasoline-host", UserDataDir: t.TempDir()}) {
		if r.Name == "daemon" && (!strings.Contains(r.Detail, "stopped on purpose") || !strings.Contains(r.Fix, "service start")) {
			t.Errorf("daemon = %+v", r)
		}
	}
}

func TestExtensionCheck(t *testing.T) {
	if r := checkExtension(nil); r.Status != Skip {
		t.Errorf("no daemon: %+v", r)
	}
	if r := checkExtension(&daemonInfo{extension: "connected"}); r.Status != OK {
		t.Errorf("connected: %+v", r)
	}
	if r := checkExtension(&daemonInfo{extension: "disconnected"}); r.Status != Fail || !strings.Contains(r.Fix, "gasoline-host install") {
		t.Errorf("disconnected: %+v", r)
	}
}

func TestReportAllPassed(t *testing.T) {
	var out bytes.Buffer
	if err := Report(&out, []Result{{Name: "a", Status: OK}, {Name: "b", Status: Skip}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "all checks passed\n") {
		t.Errorf("report:\n%s", out.String())
	}
}

// gasoline-mcp, what agents' configs run, must be beside gasoline-host and
// of its version; doctor names the file and the fix.
func TestSlimBesideTheHost(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for gasoline-mcp")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "gasoline-host")
	slim := filepath.Join(dir, "gasoline-mcp")
	check := func() Result { return checkSlim(context.Background(), Options{Self: self}) }
	if r := check(); r.Status != Fail || !strings.Contains(r.Detail, slim+" is missing") || !strings.Contains(r.Fix, "make build") {
		t.Fatalf("missing: %+v", r)
	}
	for _, c := range []struct {
		version string
		want    Status
	}{{"0.0.0-other", Fail}, {version.Version, OK}} {
		if err := os.WriteFile(slim, []byte("#!/bin/sh\necho "+c.version+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if r := check(); r.Status != c.want {
			t.Errorf("gasoline-mcp of version %s: %+v, want %s", c.version, r, c.want)
		}
	}
}
