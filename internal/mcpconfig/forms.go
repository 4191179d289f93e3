package mcpconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Snippet returns the configuration text for one client on this machine:
// the stdio form first, then streamable HTTP with the agent credential.
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
		return "# Any MCP client that takes the common mcpServers JSON. Over stdio:\n" + stdioJSON(t, false) +
			fmt.Sprintf("# Or over streamable HTTP (%s):\n", tokenNote(t)) + httpJSON("url", t, true), nil
	}
	return "", fmt.Errorf("unknown client %q (want %s or all)", client, strings.Join(Clients, ", "))
}

// claudeApproval is what a project's .mcp.json needs in Claude Code
// before it runs (code.claude.com/docs/en/mcp, "Project scope").
const claudeApproval = "# Claude Code asks once before it runs a project's .mcp.json servers: start `claude` in the project and\n" +
	"# approve gasoline (or later under /mcp); until then `claude mcp list` shows it as pending approval.\n"

func claude(t Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Claude Code: run (add --scope user to use it in every project)\n")
	fmt.Fprintf(&b, "claude mcp add %s%s -- %s\n", ServerName, claudeEnv(t), commandLine(t))
	fmt.Fprintf(&b, "# or put this in .mcp.json at the project root.\n%s", claudeApproval)
	b.WriteString(stdioJSON(t, true))
	fmt.Fprintf(&b, "# Streamable HTTP instead (%s):\n", tokenNote(t))
	b.WriteString(claudeHTTP(t))
	return b.String()
}

func claudeHTTP(t Target) string {
	return fmt.Sprintf("claude mcp add --transport http %s %s --header %s\n", ServerName, t.URL, shellQuote("Authorization: Bearer "+t.Token))
}

func claudeEnv(t Target) string {
	var b strings.Builder
	for _, k := range sortedKeys(t.Env) {
		fmt.Fprintf(&b, " -e %s", shellQuote(k+"="+t.Env[k]))
	}
	return b.String()
}

// codex: `codex mcp add NAME [--env K=V]… -- CMD ARGS` and
// ~/.codex/config.toml's [mcp_servers.NAME] (developers.openai.com/codex,
// "MCP"). Without the env, Codex would start a second daemon on the
// default home and port.
func codex(t Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Codex: run\n")
	fmt.Fprintf(&b, "codex mcp add %s", ServerName)
	for _, k := range sortedKeys(t.Env) {
		fmt.Fprintf(&b, " --env %s", shellQuote(k+"="+t.Env[k]))
	}
	fmt.Fprintf(&b, " -- %s\n", commandLine(t))
	fmt.Fprintf(&b, "# or add this to ~/.codex/config.toml:\n")
	fmt.Fprintf(&b, "[mcp_servers.%s]\ncommand = %s\n", ServerName, tomlString(t.Command))
	if len(t.Args) > 0 {
		quoted := make([]string, len(t.Args))
		for i, a := range t.Args {
			quoted[i] = tomlString(a)
		}
		fmt.Fprintf(&b, "args = [%s]\n", strings.Join(quoted, ", "))
	}
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
	fmt.Fprintf(&b, "#   export GASOLINE_TOKEN=\"$(%s token)\"\n", shellQuote(t.host()))
	b.WriteString(commented(codexHTTP(t)))
	return b.String()
}

func codexHTTP(t Target) string {
	return fmt.Sprintf("[mcp_servers.%s]\nurl = %s\nbearer_token_env_var = \"GASOLINE_TOKEN\"\n", ServerName, tomlString(t.URL))
}

func commented(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString("# " + line)
	}
	return b.String()
}

// geminiTrust is what Gemini CLI needs before it runs any MCP server
// (geminicli.com/docs/cli/trusted-folders; docs/tools/mcp-server.md,
// "trust").
const geminiTrust = "# Gemini CLI runs no MCP server in a folder it does not trust: accept \"Trust folder\" when it asks, or add\n" +
	"# the folder to ~/.gemini/trustedFolders.json as {\"/path/to/project\": \"TRUST_FOLDER\"}. In headless mode\n" +
	"# (gemini -p) a tool call Gemini would confirm does not run: add \"trust\": true to the gasoline entry so\n" +
	"# Gemini skips its own confirmation (Gasoline still asks you before any change in the browser).\n"

func gemini(t Target) string {
	return "# Gemini CLI: merge into ~/.gemini/settings.json (or .gemini/settings.json in a project).\n" + geminiTrust +
		stdioJSON(t, false) +
		fmt.Sprintf("# Streamable HTTP instead (%s):\n", tokenNote(t)) +
		httpJSON("httpUrl", t, false)
}

func cursor(t Target) string {
	return "# Cursor: merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project):\n" +
		stdioJSON(t, false) +
		fmt.Sprintf("# Streamable HTTP instead (%s):\n", tokenNote(t)) +
		httpJSON("url", t, true)
}

// commandLine is the stdio command and its arguments, quoted for a shell.
func commandLine(t Target) string {
	parts := []string{shellQuote(t.Command)}
	for _, a := range t.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// host is gasoline-host's path (the stdio command's, in a Target that
// names none apart).
func (t Target) host() string {
	if t.Host != "" {
		return t.Host
	}
	return t.Command
}

func tokenNote(t Target) string {
	return fmt.Sprintf("the daemon must be running; the credential below is the agent credential from %s: it stays valid across restarts until `gasoline-host token rotate`; keep it private", t.TokenFile)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type stdioServer struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func stdioJSON(t Target, withType bool) string {
	s := stdioServer{Command: t.Command, Args: append([]string{}, t.Args...)}
	if len(t.Env) > 0 {
		s.Env = t.Env
	}
	if withType {
		s.Type = "stdio"
	}
	return indentJSON(map[string]any{"mcpServers": map[string]any{ServerName: s}})
}

type httpServer struct {
	Type    string            `json:"type,omitempty"`
	URL     string            `json:"url,omitempty"`
	HTTPURL string            `json:"httpUrl,omitempty"` // Gemini CLI's streamable HTTP key
	Headers map[string]string `json:"headers"`
}

// httpJSON is the streamable HTTP form: urlKey "url" (with "type": "http"
// when withType: clients that tell transports apart by type need it) or
// Gemini CLI's "httpUrl".
func httpJSON(urlKey string, t Target, withType bool) string {
	s := httpServer{Headers: map[string]string{"Authorization": "Bearer " + t.Token}}
	if urlKey == "httpUrl" {
		s.HTTPURL = t.URL
	} else {
		s.URL = t.URL
	}
	if withType {
		s.Type = "http"
	}
	return indentJSON(map[string]any{"mcpServers": map[string]any{ServerName: s}})
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
