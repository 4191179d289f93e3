// Package mcpconfig prints the configuration MCP clients need to run
// Gasoline: `gasoline-host --mcp` over stdio (recommended), or the daemon's
// streamable HTTP endpoint with the agent credential — the real one, which
// stays valid across daemon restarts until `gasoline-host token rotate`.
package mcpconfig

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// ServerName is the name Gasoline is registered under in every client.
const ServerName = "gasoline"

// Clients lists the names --client accepts, in output order.
var Clients = []string{"claude", "codex", "gemini", "cursor", "json"}

// Target is what a snippet points at.
type Target struct {
	Command string // absolute path of gasoline-host
	URL     string // streamable HTTP endpoint, http://127.0.0.1:PORT/mcp
	Token   string // the agent credential (MCP only)
	// TokenFile is where the agent credential lives (0600).
	TokenFile string
	// Env is what the stdio command needs besides the defaults:
	// GASOLINE_HOME and GASOLINE_PORT when they are set.
	Env map[string]string
}

// Main runs `gasoline-host mcp-config [--client claude|codex|gemini|cursor|json|all] [--path BIN]`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	client := fs.String("client", "all", strings.Join(Clients, ", ")+" or all")
	path := fs.String("path", "", "gasoline-host binary to name (default: this executable)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return fmt.Errorf("mcp-config: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("mcp-config: unexpected argument %q", fs.Arg(0))
	}
	t, err := DefaultTarget(*path)
	if err != nil {
		return fmt.Errorf("mcp-config: %w", err)
	}
	names := []string{*client}
	if *client == "all" {
		names = Clients
	}
	for i, name := range names {
		s, err := Snippet(name, t)
		if err != nil {
			return fmt.Errorf("mcp-config: %w", err)
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprint(stdout, s)
	}
	return nil
}

// DefaultTarget names the binary at path (default: this executable), the
// daemon port from GASOLINE_PORT and the agent credential of the state
// directory (GASOLINE_HOME), creating the credential on first use so the
// snippet carries a real one.
func DefaultTarget(path string) (Target, error) {
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return Target{}, err
		}
		path = exe
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Target{}, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	port, err := state.Port()
	if err != nil {
		return Target{}, err
	}
	dir, err := state.Dir()
	if err != nil {
		return Target{}, err
	}
	tok, err := creds.Ensure(dir, creds.Agent)
	if err != nil {
		return Target{}, err
	}
	env := map[string]string{}
	for _, k := range []string{"GASOLINE_HOME", "GASOLINE_PORT"} {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		}
	}
	if env["GASOLINE_HOME"] != "" {
		env["GASOLINE_HOME"] = dir // absolute, whatever the client's working directory
	}
	return Target{
		Command:   abs,
		URL:       fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		Token:     tok,
		TokenFile: creds.Path(dir, creds.Agent),
		Env:       env,
	}, nil
}

// Snippet returns the configuration text for one client.
func Snippet(client string, t Target) (string, error) {
	switch client {
	case "claude":
		return claude(t), nil
	case "codex":
		return codex(t), nil
	case "gemini":
		return gemini(t), nil
	case "cursor":
		return cursor(t), nil
	case "json":
		return "# Any MCP client that takes the common mcpServers JSON (stdio):\n" + stdioJSON(t, false), nil
	}
	return "", fmt.Errorf("unknown client %q (want %s or all)", client, strings.Join(Clients, ", "))
}

func claude(t Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Claude Code: run (add --scope user to use it in every project)\n")
	fmt.Fprintf(&b, "claude mcp add %s%s -- %s --mcp\n", ServerName, claudeEnv(t), shellQuote(t.Command))
	fmt.Fprintf(&b, "# or put this in .mcp.json at the project root:\n%s", stdioJSON(t, true))
	fmt.Fprintf(&b, "# Streamable HTTP instead (%s):\n", tokenNote(t))
	fmt.Fprintf(&b, "claude mcp add --transport http %s %s --header %s\n", ServerName, t.URL, shellQuote("Authorization: Bearer "+t.Token))
	return b.String()
}

func claudeEnv(t Target) string {
	var b strings.Builder
	for _, k := range sortedKeys(t.Env) {
		fmt.Fprintf(&b, " -e %s", shellQuote(k+"="+t.Env[k]))
	}
	return b.String()
}

func codex(t Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Codex: add to ~/.codex/config.toml (or run: codex mcp add %s -- %s --mcp)\n", ServerName, shellQuote(t.Command))
	fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = %s\nargs = [\"--mcp\"]\n", ServerName, tomlString(t.Command))
	if len(t.Env) > 0 {
		fmt.Fprintf(&b, "env = {")
		for i, k := range sortedKeys(t.Env) {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s = %s", k, tomlString(t.Env[k]))
		}
		b.WriteString(" }\n")
	}
	fmt.Fprintf(&b, "# Streamable HTTP instead (%s). Codex reads the credential from an\n", tokenNote(t))
	fmt.Fprintf(&b, "# environment variable; set it where you start codex:\n")
	fmt.Fprintf(&b, "#   export GASOLINE_TOKEN=\"$(%s token)\"\n", shellQuote(t.Command))
	fmt.Fprintf(&b, "# [mcp_servers.%s]\n# url = %s\n# bearer_token_env_var = \"GASOLINE_TOKEN\"\n", ServerName, tomlString(t.URL))
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func gemini(t Target) string {
	return "# Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in a project):\n" +
		stdioJSON(t, false) +
		fmt.Sprintf("# Streamable HTTP instead (%s):\n", tokenNote(t)) +
		httpJSON("httpUrl", t)
}

func cursor(t Target) string {
	return "# Cursor: merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project):\n" +
		stdioJSON(t, false) +
		fmt.Sprintf("# Streamable HTTP instead (%s):\n", tokenNote(t)) +
		httpJSON("url", t)
}

func tokenNote(t Target) string {
	return fmt.Sprintf("the daemon must be running; the credential below is the agent credential from %s: it stays valid across restarts until `gasoline-host token rotate`; keep it private", t.TokenFile)
}

type stdioServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func stdioJSON(t Target, withType bool) string {
	s := stdioServer{Command: t.Command, Args: []string{"--mcp"}}
	if len(t.Env) > 0 {
		s.Env = t.Env
	}
	if withType {
		s.Type = "stdio"
	}
	return indentJSON(map[string]any{"mcpServers": map[string]any{ServerName: s}})
}

func httpJSON(urlKey string, t Target) string {
	return indentJSON(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{
		urlKey:    t.URL,
		"headers": map[string]string{"Authorization": "Bearer " + t.Token},
	}}})
}

func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic("mcpconfig: " + err.Error()) // only maps and strings: cannot fail
	}
	return string(b) + "\n"
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
