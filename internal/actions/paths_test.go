package actions

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// home makes a temporary HOME with files in the places upload must refuse
// and one it must allow.
func home(t *testing.T) string {
	t.Helper()
	h := t.TempDir()
	t.Setenv("HOME", h)
	for _, p := range []string{
		".ssh/id_ed25519", ".ssh/config", ".aws/credentials", ".gnupg/pubring.kbx", ".config/gcloud/credentials.db",
		".kube/config", ".docker/config.json", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".bash_history",
		".zsh_history", ".local/share/fish/fish_history", ".config/google-chrome/Default/Cookies",
		".config/chromium/Default/Login Data", ".mozilla/firefox/x.default/logins.json",
		"Library/Application Support/Google/Chrome/Default/History", "AppData/Local/Google/Chrome/User Data/Default/History",
		"projects/app/.env", "projects/app/.env.production", "projects/app/server.key", "projects/app/cert.pem",
		"projects/app/id_rsa", "state/token.json",
		"Documents/report.pdf", "projects/app/readme.txt", "projects/app/keyboard.png", ".docker/notes.txt",
		".config/google-chrome/Default/Preferences",
		".claude/.credentials.json", ".claude.json", ".codex/auth.json", ".gemini/oauth_creds.json",
		".config/gcloud/application_default_credentials.json", ".local/state/gasoline/credentials/approver.token",
	} {
		p = filepath.Join(h, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestUploadPathRefusals(t *testing.T) {
	h := home(t)
	protected := []string{filepath.Join(h, "state")}
	for _, rel := range []string{
		".ssh/id_ed25519", ".ssh/config", ".aws/credentials", ".gnupg/pubring.kbx", ".config/gcloud/credentials.db",
		".kube/config", ".docker/config.json", ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".bash_history",
		".zsh_history", ".local/share/fish/fish_history", ".config/google-chrome/Default/Cookies",
		".config/chromium/Default/Login Data", ".mozilla/firefox/x.default/logins.json",
		"Library/Application Support/Google/Chrome/Default/History", "AppData/Local/Google/Chrome/User Data/Default/History",
		"projects/app/.env", "projects/app/.env.production", "projects/app/server.key", "projects/app/cert.pem",
		"projects/app/id_rsa", "state/token.json",
		".claude/.credentials.json", ".claude.json", ".codex/auth.json", ".gemini/oauth_creds.json",
		".config/gcloud/application_default_credentials.json",
	} {
		t.Run(rel, func(t *testing.T) {
			_, err := CheckUploadPaths([]string{filepath.Join(h, rel)}, protected)
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("upload of ~/%s: got %v, want a refusal", rel, err)
			}
		})
	}
	for _, rel := range []string{"Documents/report.pdf", "projects/app/readme.txt", "projects/app/keyboard.png", ".docker/notes.txt"} {
		p := filepath.Join(h, rel)
		got, err := CheckUploadPaths([]string{p}, protected)
		if err != nil || len(got) != 1 || got[0] != p {
			t.Errorf("upload of ~/%s: got %v, %v; want it allowed", rel, got, err)
		}
	}
}

func TestUploadPathSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	h := home(t)
	dir := filepath.Join(h, "Downloads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"innocent.txt": filepath.Join(h, ".ssh", "id_ed25519"), // a link to a key
		"keys":         filepath.Join(h, ".ssh"),               // a link to the folder
		"profile":      filepath.Join(h, ".config", "google-chrome"),
		"notes.json":   filepath.Join(h, ".claude", ".credentials.json"), // an agent's own credential
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{
		filepath.Join(dir, "innocent.txt"),
		filepath.Join(dir, "keys", "config"),
		filepath.Join(dir, "profile", "Default", "Preferences"),
		filepath.Join(dir, "notes.json"),
	} {
		_, err := CheckUploadPaths([]string{p}, nil)
		if err == nil || !strings.Contains(err.Error(), "it resolves to") {
			t.Errorf("upload of %s: got %v, want a refusal naming the real path", p, err)
		}
	}
	// A link from a refused place to an allowed file is refused too: the
	// path as given counts as well as the real one.
	doc := filepath.Join(h, "Documents", "report.pdf")
	if err := os.Symlink(doc, filepath.Join(h, ".ssh", "report.pdf")); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckUploadPaths([]string{filepath.Join(h, ".ssh", "report.pdf")}, nil); err == nil {
		t.Error("a path inside ~/.ssh is refused even when it links elsewhere")
	}
}

func TestUploadPathErrors(t *testing.T) {
	h := home(t)
	for _, c := range []struct {
		paths []string
		want  string
	}{
		{nil, "files is empty"},
		{[]string{"report.pdf"}, "must be absolute"},
		{[]string{filepath.Join(h, "missing.pdf")}, "no such file"},
		{[]string{filepath.Join(h, "Documents")}, "not a regular file"},
		{[]string{filepath.Join(h, "Documents", "report.pdf"), filepath.Join(h, ".netrc")}, ".netrc"},
		{[]string{"/proc/self/environ"}, "system files"},
	} {
		_, err := CheckUploadPaths(c.paths, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckUploadPaths(%v) = %v, want an error containing %q", c.paths, err, c.want)
		}
	}
}

// Gasoline's own state directory is refused wherever GASOLINE_HOME
// points: the default one (where the credentials live by default) is
// protected too (interact passes both).
func TestUploadRefusesTheDefaultStateDirectory(t *testing.T) {
	h := home(t)
	t.Setenv("XDG_STATE_HOME", "")
	def, err := state.DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(h, ".local/state/gasoline/credentials/approver.token")
	_, err = CheckUploadPaths([]string{p}, []string{filepath.Join(h, "elsewhere"), def})
	var pe *PathError
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "Gasoline's state directory") {
		t.Fatalf("upload of the approver credential: %v, want a refusal", err)
	}
}
