package mcpconfig

import (
	"fmt"
	"strings"
)

// RemoteClients are the clients RemoteSnippet knows.
var RemoteClients = []string{"claude", "codex", "gemini", "cursor", "json"}

// RemoteSnippet is the configuration for an agent on another machine
// (`gasoline-host remote add`): streamable HTTP to t.URL — the remote
// end of the SSH forward — with the remote agent's credential t.Token.
// Nothing of gasoline-host runs there.
func RemoteSnippet(client string, t Target) (string, error) {
	note := "# The credential below is this remote agent's alone: keep it private; it stops working when it expires or is revoked.\n"
	switch client {
	case "claude":
		return "# Claude Code on the remote machine: run (add --scope user to use it in every project)\n" + note + claudeHTTP(t), nil
	case "codex":
		return "# Codex on the remote machine: Codex reads the credential from an environment variable;\n" +
			"# set it where you start codex (e.g. in ~/.profile) …\n" + note +
			fmt.Sprintf("export GASOLINE_TOKEN=%s\n", shellQuote(t.Token)) +
			"# … and add this to ~/.codex/config.toml:\n" + codexHTTP(t), nil
	case "gemini":
		return "# Gemini CLI on the remote machine: merge into ~/.gemini/settings.json.\n" + geminiTrust + note + httpJSON("httpUrl", t, false), nil
	case "cursor":
		return "# Cursor on the remote machine: merge into ~/.cursor/mcp.json.\n" + note + httpJSON("url", t, true), nil
	case "json":
		return "# Any MCP client that takes the common mcpServers JSON (streamable HTTP):\n" + note + httpJSON("url", t, true), nil
	}
	return "", fmt.Errorf("unknown client %q (want %s)", client, strings.Join(RemoteClients, ", "))
}
