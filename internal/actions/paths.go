package actions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The upload refusal list (SAFETY.md, "Upload paths"): keys, credentials,
// shell histories and browser profiles. Every check runs on the path as
// given and on its real path (symlinks resolved), case-insensitively, on
// every OS: refusing a harmless file is cheap, leaking a key is not.

// refusedDirs are folders refused wherever they sit, as consecutive path
// components.
var refusedDirs = sync.OnceValue(func() [][]string {
	return [][]string{
		// AI agents' own credentials and settings (Claude Code, Codex, Gemini
		// CLI, Copilot, Cursor, Aider): an agent must not hand its own keys
		// — or another agent's — to a page.
		{".claude"}, {".codex"}, {".gemini"}, {".config", "claude"}, {".config", "github-copilot"}, {".cursor"},
		{".config", "codex"}, {".aider"},
		{".ssh"}, {".aws"}, {".gnupg"}, {".kube"}, {".azure"}, {".password-store"},
		{".config", "gcloud"}, {".config", "gh"}, {".config", "hub"}, {".docker", "config.json"},
		{".config", "google-chrome"}, {".config", "google-chrome-beta"}, {".config", "google-chrome-unstable"},
		{".config", "chromium"}, {".config", "bravesoftware"}, {".config", "microsoft-edge"}, {".config", "vivaldi"},
		{".config", "opera"}, {".mozilla"}, {".librewolf"}, {"snap", "chromium"}, {"snap", "firefox"},
		{".var", "app", "org.chromium.chromium"}, {".var", "app", "com.google.chrome"}, {".var", "app", "org.mozilla.firefox"},
		{"library", "application support", "google", "chrome"}, {"library", "application support", "google", "chrome beta"},
		{"library", "application support", "google", "chrome canary"}, {"library", "application support", "chromium"},
		{"library", "application support", "bravesoftware"}, {"library", "application support", "microsoft edge"},
		{"library", "application support", "firefox"}, {"library", "application support", "arc"},
		{"library", "application support", "vivaldi"}, {"library", "keychains"}, {"library", "cookies"},
		{"appdata", "local", "google", "chrome"}, {"appdata", "local", "chromium"}, {"appdata", "local", "microsoft", "edge"},
		{"appdata", "local", "bravesoftware"}, {"appdata", "roaming", "mozilla"}, {"appdata", "roaming", "opera software"},
		{"appdata", "roaming", "microsoft", "credentials"}, {"appdata", "local", "microsoft", "credentials"},
		{"appdata", "roaming", "microsoft", "protect"},
		{".gem", "credentials"}, {".cargo", "credentials"}, {".cargo", "credentials.toml"},
		{"etc", "ssh"}, {"etc", "shadow"}, {"etc", "gshadow"}, {"etc", "sudoers"}, {"etc", "sudoers.d"},
	}
})

// refusedNames are file names refused anywhere.
var refusedNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		".claude.json": true, ".claude.json.backup": true, ".aider.conf.yml": true,
		".netrc": true, "_netrc": true, ".npmrc": true, ".pypirc": true, ".git-credentials": true,
		".pgpass": true, ".my.cnf": true, ".vault-token": true, ".terraformrc": true, "credentials.tfrc.json": true,
		".bash_history": true, ".zsh_history": true, ".sh_history": true, ".history": true, "fish_history": true,
		".python_history": true, ".node_repl_history": true, ".psql_history": true, ".mysql_history": true,
		".sqlite_history": true, ".rediscli_history": true, ".lesshst": true, ".viminfo": true,
		"consolehost_history.txt": true, // PowerShell
		".env":                    true, "id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "id_ecdsa_sk": true,
		"id_ed25519_sk": true, "identity": true, "authorized_keys": true, "known_hosts": true,
		"application_default_credentials.json": true, "access_tokens.db": true, "credentials.db": true,
		"login data": true, "cookies": true, "web data": true, "key4.db": true, "logins.json": true, "cert9.db": true,
	}
})

// refusedExts are extensions of key and keystore files.
var refusedExts = map[string]bool{
	".pem": true, ".key": true, ".p12": true, ".pfx": true, ".ppk": true, ".jks": true,
	".keystore": true, ".kdbx": true, ".gpg": true, ".asc": true, ".p8": true, ".ovpn": true,
}

// refusedPrefixes are system trees never uploaded.
var refusedPrefixes = [][]string{{"proc"}, {"sys"}, {"dev"}, {"private", "etc"}}

// PathError is an upload path refused or unusable.
type PathError struct {
	Path   string
	Reason string
}

func (e *PathError) Error() string { return fmt.Sprintf("upload of %s refused: %s", e.Path, e.Reason) }

// CheckUploadPaths checks each path and returns the paths to set (their
// real paths). protected are more folders to refuse (Gasoline's state
// directory). A relative, missing, non-regular or refused path fails the
// whole call.
func CheckUploadPaths(paths, protected []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("files is empty: give absolute paths of the files to upload")
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		real, err := checkUploadPath(p, protected)
		if err != nil {
			return nil, err
		}
		out = append(out, real)
	}
	return out, nil
}

func checkUploadPath(p string, protected []string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", &PathError{Path: p, Reason: "the path must be absolute"}
	}
	clean := filepath.Clean(p)
	if why := refusedWhy(clean, protected); why != "" {
		return "", &PathError{Path: p, Reason: why}
	}
	real, err := filepath.EvalSymlinks(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &PathError{Path: p, Reason: "no such file"}
	}
	if err != nil {
		return "", &PathError{Path: p, Reason: err.Error()}
	}
	if why := refusedWhy(real, protected); why != "" {
		return "", &PathError{Path: p, Reason: "it resolves to " + real + ", " + why}
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", &PathError{Path: p, Reason: err.Error()}
	}
	if !st.Mode().IsRegular() {
		return "", &PathError{Path: p, Reason: "it is not a regular file"}
	}
	return real, nil
}

// refusedWhy returns why a clean absolute path is refused, or "".
func refusedWhy(p string, protected []string) string {
	comps := components(p)
	for _, dir := range protected {
		if dir == "" {
			continue
		}
		if d := components(filepath.Clean(dir)); hasPrefix(comps, d) {
			return "it is inside Gasoline's state directory"
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil && hasPrefix(comps, components(real)) {
			return "it is inside Gasoline's state directory"
		}
	}
	for _, pre := range refusedPrefixes {
		if hasPrefix(comps, pre) {
			return "system files are never uploaded"
		}
	}
	for _, d := range refusedDirs() {
		if containsRun(comps, d) {
			return "it is in " + strings.Join(d, "/") + ", which holds keys, credentials or a browser profile"
		}
	}
	base := comps[len(comps)-1]
	switch {
	case refusedNames()[base], strings.HasPrefix(base, ".env."), strings.HasSuffix(base, "_history"):
		return "its name marks a credential, key or shell history file"
	case refusedExts[strings.ToLower(filepath.Ext(base))]:
		return "its extension marks a private key or keystore"
	}
	return ""
}

// components splits a clean absolute path into lower-case components,
// dropping the volume and root.
func components(p string) []string {
	p = strings.TrimPrefix(p, filepath.VolumeName(p))
	var out []string
	for c := range strings.SplitSeq(filepath.ToSlash(p), "/") {
		if c != "" {
			out = append(out, strings.ToLower(c))
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func hasPrefix(comps, pre []string) bool {
	if len(pre) == 0 || len(pre) > len(comps) || (len(pre) == 1 && pre[0] == "") {
		return false
	}
	for i := range pre {
		if comps[i] != pre[i] {
			return false
		}
	}
	return true
}

func containsRun(comps, run []string) bool {
	for i := 0; i+len(run) <= len(comps); i++ {
		if hasPrefix(comps[i:], run) {
			return true
		}
	}
	return false
}
