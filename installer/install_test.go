// Package installer holds the tests of install.sh: run as a user would,
// with HOME and the XDG folders pointed at a temp dir.
package installer

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/extid"
)

// Where each browser reads a user-level manifest, written out here rather
// than taken from internal/install so that the test checks the code.
var manifestPaths = map[string][]string{
	"linux": {
		".config/google-chrome/NativeMessagingHosts/com.gasoline.host.json",
		".config/chromium/NativeMessagingHosts/com.gasoline.host.json",
		".config/microsoft-edge/NativeMessagingHosts/com.gasoline.host.json",
		".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.gasoline.host.json",
	},
	"darwin": {
		"Library/Application Support/Google/Chrome/NativeMessagingHosts/com.gasoline.host.json",
		"Library/Application Support/Chromium/NativeMessagingHosts/com.gasoline.host.json",
		"Library/Application Support/Microsoft Edge/NativeMessagingHosts/com.gasoline.host.json",
		"Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.gasoline.host.json",
	},
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// buildHost builds gasoline-host, and gasoline-mcp beside it as releases
// ship them, with the caller's Go environment.
func buildHost(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for pkg, name := range map[string]string{"./host": "gasoline-host", "./mcp": "gasoline-mcp"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	return filepath.Join(dir, "gasoline-host")
}

// sandboxEnv is a minimal environment whose HOME, XDG folders and state
// folder are all under home; nothing reaches the real HOME.
func sandboxEnv(home string, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"GASOLINE_SKIP_SERVICE=1",
		"LANG=C",
	}, extra...)
}

func runScript(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(repoRoot(t), "installer", "install.sh")}, args...)...)
	cmd.Env = env
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// tree lists every path under root (relative, slash-separated, sorted).
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(root, p); rel != "." {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestInstallScript(t *testing.T) {
	paths, ok := manifestPaths[runtime.GOOS]
	if !ok {
		t.Skipf("install.sh supports Linux and macOS, not %s", runtime.GOOS)
	}
	bin := buildHost(t)
	home := t.TempDir()
	// The browsers are "installed": their user data folders exist.
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Join(home, filepath.Dir(filepath.Dir(p))), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	before := tree(t, home)
	env := sandboxEnv(home, "GASOLINE_BIN="+bin)

	out := runScript(t, env, "--yes")
	installed := filepath.Join(home, ".local", "bin", "gasoline-host")
	slim := filepath.Join(home, ".local", "bin", "gasoline-mcp")
	for _, p := range []string{installed, slim} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("binary not installed: %v\n%s", err, out)
		}
		if fi.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable (mode %v)", p, fi.Mode())
		}
	}
	for _, p := range paths {
		checkManifest(t, filepath.Join(home, p), installed)
	}
	for _, want := range []string{
		"Next steps", "chrome://extensions", filepath.Join(repoRoot(t), "extension"),
		"claude mcp add gasoline -- " + slim + "\n", "[mcp_servers.gasoline]", "# Gemini CLI", "# Cursor",
		"GASOLINE_SKIP_SERVICE=1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	// Only the binary, the manifests and the agent credential the printed
	// HTTP configs carry were added.
	state := ".local/state/gasoline"
	wantAdded := map[string]bool{".local": true, ".local/bin": true, ".local/bin/gasoline-host": true, ".local/bin/gasoline-mcp": true,
		".local/state": true, state: true, state + "/credentials": true, state + "/credentials/agent.token": true}
	for _, p := range paths {
		wantAdded[p] = true
		wantAdded[filepath.ToSlash(filepath.Dir(p))] = true
	}
	for _, p := range tree(t, home) {
		if !wantAdded[p] && !contains(before, p) {
			t.Errorf("install.sh wrote %s, which nothing asked for", p)
		}
	}

	// Running it again is harmless.
	if out := runScript(t, env, "--yes"); strings.Count(out, "unchanged") != len(paths) {
		t.Errorf("second install should report %d unchanged manifests:\n%s", len(paths), out)
	}

	tok, err := os.ReadFile(filepath.Join(home, state, "credentials", "agent.token"))
	if err != nil || !strings.Contains(out, "Bearer "+strings.TrimSpace(string(tok))) {
		t.Errorf("the printed HTTP configs do not carry the install's agent credential (%v)", err)
	}

	// Uninstalling keeps the state (and so the credential HTTP clients
	// were configured with); --purge removes it too.
	out = runScript(t, env, "--uninstall", "--yes")
	if _, err := os.Stat(filepath.Join(home, state, "credentials", "agent.token")); err != nil {
		t.Errorf("uninstall without --purge removed the state: %v\n%s", err, out)
	}
	runScript(t, env, "--yes")
	out = runScript(t, env, "--uninstall", "--purge", "--yes")
	if after := tree(t, home); !reflect.DeepEqual(after, before) {
		t.Errorf("uninstall --purge left the tree changed:\n got %q\nwant %q\noutput:\n%s", after, before, out)
	}
}

func checkManifest(t *testing.T, file, bin string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("manifest missing where the browser reads it: %v", err)
		return
	}
	var m struct {
		Name           string   `json:"name"`
		Path           string   `json:"path"`
		Type           string   `json:"type"`
		AllowedOrigins []string `json:"allowed_origins"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Errorf("%s is not valid JSON: %v", file, err)
		return
	}
	if m.Name != "com.gasoline.host" || m.Type != "stdio" {
		t.Errorf("%s: name %q type %q", file, m.Name, m.Type)
	}
	if !filepath.IsAbs(m.Path) || m.Path != bin {
		t.Errorf("%s: path %q, want the installed binary %q", file, m.Path, bin)
	}
	if fi, err := os.Stat(m.Path); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Errorf("%s: path %q is not an executable file (%v)", file, m.Path, err)
	}
	if !reflect.DeepEqual(m.AllowedOrigins, []string{extid.Origin}) {
		t.Errorf("%s: allowed_origins %q, want [%q]", file, m.AllowedOrigins, extid.Origin)
	}
	if fi, err := os.Stat(file); err == nil && fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: mode %v, want 0644", file, fi.Mode().Perm())
	}
}

// From a checkout, install.sh builds gasoline-host itself.
func TestInstallScriptBuildsFromCheckout(t *testing.T) {
	if _, ok := manifestPaths[runtime.GOOS]; !ok {
		t.Skipf("install.sh supports Linux and macOS, not %s", runtime.GOOS)
	}
	if testing.Short() {
		t.Skip("builds gasoline-host")
	}
	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return "" + k + "=" + strings.TrimSpace(string(out))
	}
	home := t.TempDir()
	// The build uses the caller's module and build caches, offline.
	env := sandboxEnv(home, goEnv("GOCACHE"), goEnv("GOMODCACHE"), goEnv("GOPATH"), "GOPROXY=off", "GOTOOLCHAIN=local")
	out := runScript(t, env, "--yes")
	installed := filepath.Join(home, ".local", "bin", "gasoline-host")
	slim := filepath.Join(home, ".local", "bin", "gasoline-mcp")
	if !strings.Contains(out, "Building gasoline-host and gasoline-mcp from "+repoRoot(t)) {
		t.Errorf("install.sh did not build from the checkout:\n%s", out)
	}
	for _, p := range []string{installed, slim} {
		v, err := exec.Command(p, "version").Output()
		if err != nil || len(strings.TrimSpace(string(v))) == 0 {
			t.Fatalf("%s version: %q, %v", p, v, err)
		}
	}
	runScript(t, env, "--uninstall", "--yes")
	for _, p := range []string{installed, slim} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("uninstall left %s", p)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
