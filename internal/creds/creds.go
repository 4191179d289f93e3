// Package creds holds Gasoline's credentials: one random bearer token per
// role, each in its own 0600 file under $GASOLINE_HOME/credentials/ (a
// 0700 folder), each accepted by its own endpoints only (SAFETY.md,
// "Transport security"; docs/SECURITY.md).
//
//   - Agent: MCP only (/mcp, the stdio relay's link). Stable per install: created once,
//     kept across daemon restarts, replaced only by `gasoline-host token
//     rotate`. It is what `mcp-config` hands to HTTP clients and what the
//     stdio relay sends.
//   - Link: the extension link (/ws/host), used by the native host. A new
//     one each time a daemon starts.
//   - Approver: deciding approvals and site grants, and /shutdown; used by
//     the terminal CLI (`gasoline-host approve|deny`) and by the launcher
//     when it recycles a daemon. A new one each time a daemon starts. The
//     panel decides through the extension link instead.
//
// Programs running as the same user can read these files; what the split
// guarantees is that nothing an agent is handed (its credential, its MCP
// tools) can decide an approval, reach the extension link or stop the
// daemon.
package creds

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Role is what a credential lets its holder do.
type Role int

// The roles. None is the role of a request that carries no known
// credential.
const (
	None Role = iota
	Agent
	Link
	Approver
)

// Roles lists the roles that have a credential.
var Roles = []Role{Agent, Link, Approver}

func (r Role) String() string {
	switch r {
	case Agent:
		return "agent"
	case Link:
		return "link"
	case Approver:
		return "approver"
	case Remote:
		return "remote"
	}
	return "none"
}

// Describe says who holds the role's credential, for error messages.
func (r Role) Describe() string {
	switch r {
	case Agent:
		return "the agent credential (MCP clients; `gasoline-host token` prints it, `gasoline-host mcp-config` configures it)"
	case Link:
		return "the link credential (the extension link: the native host Chrome starts)"
	case Approver:
		return "the approver credential (the Gasoline panel, or `gasoline-host approve|deny` run by a person at a terminal)"
	case Remote:
		return "a remote agent's credential (`gasoline-host remote add NAME` prints it; MCP over /mcp only)"
	}
	return "no credential"
}

// Dir is the credentials folder in a state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "credentials") }

// Path is the file holding a role's credential.
func Path(stateDir string, r Role) string { return filepath.Join(Dir(stateDir), r.String()+".token") }

// ErrMissing means a role has no credential file yet (for Link and
// Approver: no daemon has started in this state directory).
var ErrMissing = errors.New("creds: no credential file")

// Load reads a role's credential. A file that is a symlink, not this
// user's or open to others is refused with ErrUnsafe (secure.go).
func Load(stateDir string, r Role) (string, error) {
	raw, err := readPrivate(Path(stateDir, r))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w for the %s role at %s", ErrMissing, r, Path(stateDir, r))
	}
	if errors.Is(err, ErrUnsafe) {
		return "", fmt.Errorf("%w; it is not used: the daemon replaces it when it starts (or run `gasoline-host token rotate` for the agent credential)", err)
	}
	if err != nil {
		return "", fmt.Errorf("creds: reading the %s credential: %w", r, err)
	}
	tok := strings.TrimSpace(string(raw))
	if !valid(tok) {
		return "", fmt.Errorf("creds: %s does not hold a credential (64 hex digits); run `gasoline-host token rotate` for the agent credential, or restart the daemon for the others", Path(stateDir, r))
	}
	return tok, nil
}

// Ensure returns a role's credential, creating it when there is none yet.
// Two processes that race both end up with the same value: the file is
// created exclusively, and the loser reads the winner's.
func Ensure(stateDir string, r Role) (string, error) {
	tok, err := Load(stateDir, r)
	if !errors.Is(err, ErrMissing) {
		return tok, err
	}
	if err := ensureDir(stateDir); err != nil {
		return "", err
	}
	tok = New()
	if err := createExclusive(Path(stateDir, r), []byte(tok+"\n")); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Load(stateDir, r)
		}
		return "", err
	}
	return tok, nil
}

// Rotate replaces a role's credential with a new one (atomically: a
// reader sees the old or the new value, never half) and returns it.
func Rotate(stateDir string, r Role) (string, error) {
	if err := ensureDir(stateDir); err != nil {
		return "", err
	}
	tok := New()
	if err := state.WriteFileAtomic(Path(stateDir, r), []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("creds: writing the %s credential: %w", r, err)
	}
	return tok, nil
}

// New returns a fresh 256-bit credential, hex-encoded.
func New() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("creds: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// Equal compares a presented credential with the real one in constant time.
// An empty real credential matches nothing.
func Equal(presented, real string) bool {
	return real != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(real)) == 1
}

func valid(tok string) bool {
	if len(tok) != 64 {
		return false
	}
	_, err := hex.DecodeString(tok)
	return err == nil
}

func ensureDir(stateDir string) error {
	d := Dir(stateDir)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("creds: creating %s: %w", d, err)
	}
	return nil
}

// createExclusive writes data to a new file at path (0600), failing with
// fs.ErrExist when it exists. The data is written to a temp file first and
// linked into place, so nobody reads a half-written credential.
func createExclusive(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".new*")
	if err != nil {
		return fmt.Errorf("creds: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Chmod(0o600); err != nil && !chmodUnsupported() {
		tmp.Close()
		return fmt.Errorf("creds: %w", err)
	}
	_, werr := tmp.Write(data)
	if serr := tmp.Sync(); werr == nil {
		werr = serr
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("creds: writing %s: %w", name, werr)
	}
	if err := os.Link(name, path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, fs.ErrExist) {
			return fs.ErrExist
		}
		return fmt.Errorf("creds: %w", err)
	}
	return nil
}
