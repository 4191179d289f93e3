package mcpline

import (
	"bytes"
	"encoding/json"
	"time"
)

// Hello is the first line a relay sends on a link. The daemon answers it
// with one line (Answer); only then do MCP messages flow, one JSON-RPC
// message per line each way.
type Hello struct {
	// Gasoline is always HelloKind: what makes the line a hello, and
	// what a program that is not a relay cannot send by accident.
	Gasoline string `json:"gasoline"`
	// Credential is the agent credential (credentials/agent.token): the
	// same check as the HTTP guard's bearer token for /mcp, agent role
	// only.
	Credential string `json:"credential"`
	Version    string `json:"version,omitempty"` // the relay's
	// Session and ResumeKey name a session to resume: its id and the key
	// the daemon handed with it. The id alone resumes nothing.
	Session   string `json:"session,omitempty"`
	ResumeKey string `json:"resume_key,omitempty"`
}

// HelloKind is Hello.Gasoline.
const HelloKind = "mcp-relay-hello"

// Answer is the daemon's answer to a hello: the session the link serves,
// or Error and the connection closes.
type Answer struct {
	Session string `json:"session,omitempty"`
	Resumed bool   `json:"resumed,omitempty"`
	// ResumeKey is handed for a new session only: the relay keeps it to
	// resume the session on a later link.
	ResumeKey string `json:"resume_key,omitempty"`
	Version   string `json:"version,omitempty"` // the daemon's
	Error     string `json:"error,omitempty"`   // why the hello was refused
}

// End is the control line with which a relay says its client ended the
// session (stdin reached its end, or the relay was told to stop): the
// daemon ends the session and its tabs close. A link that closes without
// it keeps the session for the relay to resume. It is not JSON, and the
// relay forwards only lines that begin with '{' or '[' (it answers any
// other line itself with a parse error), so no client line can be taken
// for it.
const End = "end"

// IsEnd reports whether a line read from a link is End.
func IsEnd(line []byte) bool { return bytes.Equal(bytes.TrimSpace(line), []byte(End)) }

// Forwardable reports whether a client line may go on a link: its first
// byte that is not white space is '{' or '[' (a JSON object or array).
// Any other line is not JSON-RPC; the relay answers it with a parse
// error itself, which keeps End and every other control line out of a
// client's reach.
func Forwardable(line []byte) bool {
	t := bytes.TrimLeft(line, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// HelloTimeout bounds the wait for a hello on a new link, and for its
// answer at the relay.
const HelloTimeout = 10 * time.Second

// MaxHello bounds a hello line: a credential, two ids and a version.
const MaxHello = 4 << 10

// Marshal is json.Marshal and a newline, for Hello and Answer.
func Marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // Hello and Answer hold strings and bools only
	}
	return append(b, '\n')
}
