// Package remote is Gasoline's remote agents (issue 34): an agent that runs
// on another machine — an SSH dev box, a devcontainer, WSL, a CI runner —
// and reaches the user's browser through an SSH port forward to the
// daemon's loopback port. Each remote agent has a credential of its own,
// minted by `gasoline-host remote add NAME`: MCP over streamable HTTP only,
// limited to the tools and modes and the origins named, expiring, and
// revocable at once (`remote revoke`, or the panel). Its sessions, tab
// groups and approval prompts carry its name. Everything the local agent
// credential cannot do — approve, reach the extension link, stop the
// daemon — a remote credential cannot do either; and it never names files
// on the user's machine (upload takes file contents from it, not paths).
//
// The store (store.go) keeps only a SHA-256 of each credential, in
// credentials/remotes.json (0600; creds.Secure refuses the file if anyone
// else could have read or written it). The daemon's Registry
// (registry.go) answers which remote a presented credential names, ends
// the sessions of a remote revoked or expired, and judges each call
// against the remote's scope (scope.go).
package remote

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Agent is one remote agent as the store keeps it.
type Agent struct {
	Name string `json:"name"`
	// ID is random; the agent's sessions are bound to Principal().
	ID string `json:"id"`
	// TokenSHA256 is the SHA-256 of its credential, hex: the credential
	// itself is shown once, by `remote add`, and kept nowhere.
	TokenSHA256 string    `json:"token_sha256"`
	Tools       []string  `json:"tools"`
	Origins     []string  `json:"origins"`
	Created     time.Time `json:"created_at"`
	Expires     time.Time `json:"expires_at"`
}

// Principal is what the agent's MCP sessions are bound to.
func (a Agent) Principal() string { return "remote:" + a.ID }

// Live reports whether the credential works at now.
func (a Agent) Live(now time.Time) bool { return now.Before(a.Expires) }

// tokenPrefix marks a remote agent's credential (secret scanners and
// people tell it from the local agent credential).
const tokenPrefix = "gsr_"

// newToken returns a fresh credential and its hash.
func newToken() (tok, sum string) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("remote: crypto/rand failed: " + err.Error())
	}
	tok = tokenPrefix + hex.EncodeToString(b)
	return tok, hashToken(tok)
}

func hashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

func newID() string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic("remote: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// MaxTTL bounds a credential's life; DefaultTTL is `remote add`'s.
const (
	MaxTTL     = 30 * 24 * time.Hour
	DefaultTTL = 24 * time.Hour
)

// validName: what an SSH host alias, a tab group title and a prompt can
// all carry.
func validName(name string) error {
	if name == "" || len(name) > 32 {
		return fmt.Errorf("a remote agent's name is 1 to 32 characters (got %d)", len(name))
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && (c == '-' || c == '_' || c == '.')
		if !ok {
			return fmt.Errorf("remote agent name %q: use letters, digits, '-', '_' and '.', starting with a letter or digit", name)
		}
	}
	return nil
}
