package mcpconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

var target = Target{
	Command:   "/home/a b/.local/bin/gasoline-mcp",
	Host:      "/home/a b/.local/bin/gasoline-host",
	URL:       "http://127.0.0.1:7890/mcp",
	Token:     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
	TokenFile: "/home/a b/.local/state/gasoline/credentials/agent.token",
}

// jsonBlocks returns the JSON documents in a snippet (lines from "{" to "}").
func jsonBlocks(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	var cur []string
	for _, line := range strings.Split(s, "\n") {
		if line == "{" {
			cur = []string{}
		}
		if cur != nil {
			cur = append(cur, line)
		}
		if line == "}" && cur != nil {
			var v map[string]any
			if err := json.Unmarshal([]byte(strings.Join(cur, "\n")), &v); err != nil {
				t.Fatalf("invalid JSON block: %v\n%s", err, strings.Join(cur, "\n"))
			}
			out = append(out, v)
			cur = nil
		}
	}
	return out
}

func server(t *testing.T, doc map[string]any) map[string]any {
	t.Helper()
	servers, _ := doc["mcpServers"].(map[string]any)
	s, ok := servers["gasoline"].(map[string]any)
	if !ok {
		t.Fatalf("no mcpServers.gasoline in %v", doc)
	}
	return s
}

func TestStdioJSONSnippets(t *testing.T) {
	for _, c := range []string{"claude", "gemini", "cursor", "json"} {
		t.Run(c, func(t *testing.T) {
			s, err := Snippet(c, target)
			if err != nil {
				t.Fatal(err)
			}
			blocks := jsonBlocks(t, s)
			if len(blocks) == 0 {
				t.Fatalf("no JSON in:\n%s", s)
			}
			srv := server(t, blocks[0])
			if srv["command"] != target.Command || !reflect.DeepEqual(srv["args"], []any{}) {
				t.Errorf("stdio server = %v", srv)
			}
			fb := target // gasoline-mcp missing: gasoline-host --mcp
			fb.Command, fb.Args = fb.Host, []string{"--mcp"}
			s, _ = Snippet(c, fb)
			if srv := server(t, jsonBlocks(t, s)[0]); srv["command"] != fb.Host || !reflect.DeepEqual(srv["args"], []any{"--mcp"}) {
				t.Errorf("stdio server without gasoline-mcp = %v", srv)
			}
		})
	}
}

func TestHTTPSnippets(t *testing.T) {
	for c, key := range map[string]string{"gemini": "httpUrl", "cursor": "url"} {
		s, _ := Snippet(c, target)
		blocks := jsonBlocks(t, s)
		if len(blocks) != 2 {
			t.Fatalf("%s: want stdio and HTTP blocks, got %d:\n%s", c, len(blocks), s)
		}
		srv := server(t, blocks[1])
		if srv[key] != target.URL {
			t.Errorf("%s: %s = %v, want %s", c, key, srv[key], target.URL)
		}
		if h, _ := srv["headers"].(map[string]any); h["Authorization"] != "Bearer "+target.Token {
			t.Errorf("%s: headers = %v", c, srv["headers"])
		}
		if !strings.Contains(s, target.TokenFile) {
			t.Errorf("%s: snippet does not say where the token is:\n%s", c, s)
		}
	}
}

func TestClaudeCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	s, _ := Snippet("claude", target)
	if want := "claude mcp add gasoline -- '/home/a b/.local/bin/gasoline-mcp'\n"; !strings.Contains(s, want) {
		t.Errorf("claude snippet lacks %q:\n%s", want, s)
	}
	fb := target
	fb.Command, fb.Args = fb.Host, []string{"--mcp"}
	if s, _ := Snippet("claude", fb); !strings.Contains(s, "claude mcp add gasoline -- '/home/a b/.local/bin/gasoline-host' --mcp\n") {
		t.Errorf("claude snippet without gasoline-mcp:\n%s", s)
	}
	if want := "claude mcp add --transport http gasoline http://127.0.0.1:7890/mcp --header 'Authorization: Bearer " + target.Token + "'\n"; !strings.Contains(s, want) {
		t.Errorf("claude snippet lacks %q:\n%s", want, s)
	}
}

func TestCodexTOML(t *testing.T) {
	tg := target
	tg.Command, tg.Args = `C:\Users\a "b"\gasoline-host.exe`, []string{"--mcp"}
	s, _ := Snippet("codex", tg)
	want := "[mcp_servers.gasoline]\ncommand = \"C:\\\\Users\\\\a \\\"b\\\"\\\\gasoline-host.exe\"\nargs = [\"--mcp\"]\n"
	if !strings.Contains(s, want) {
		t.Errorf("codex snippet lacks\n%s\ngot:\n%s", want, s)
	}
	if s, _ := Snippet("codex", target); !strings.Contains(s, "command = \"/home/a b/.local/bin/gasoline-mcp\"\n#") ||
		!strings.Contains(s, "$('/home/a b/.local/bin/gasoline-host' token)") {
		t.Errorf("codex snippet for gasoline-mcp (no args; the token from gasoline-host):\n%s", s)
	}
	if !strings.Contains(s, `# bearer_token_env_var = "GASOLINE_TOKEN"`) || !strings.Contains(s, `# url = "http://127.0.0.1:7890/mcp"`) ||
		!strings.Contains(s, "export GASOLINE_TOKEN=\"$(") || !strings.Contains(s, " token)\"") {
		t.Errorf("codex snippet lacks the HTTP form:\n%s", s)
	}
}

func TestMainPrintsEveryClient(t *testing.T) {
	t.Setenv("GASOLINE_PORT", "7999")
	t.Setenv("GASOLINE_HOME", t.TempDir())
	bin := filepath.Join(t.TempDir(), "gasoline-host")
	if err := os.WriteFile(bin, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := Main(context.Background(), []string{"--path", bin}, &out, &errOut); err != nil {
		t.Fatalf("Main: %v\n%s", err, errOut.String())
	}
	for _, want := range []string{"# Claude Code", "# Codex", "# Gemini CLI", "# Cursor", "http://127.0.0.1:7999/mcp", bin + " --mcp"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	slim := filepath.Join(filepath.Dir(bin), "gasoline-mcp")
	if !strings.Contains(errOut.String(), slim+" is not beside gasoline-host") {
		t.Errorf("stderr does not say gasoline-mcp is missing: %q", errOut.String())
	}
	if err := os.WriteFile(slim, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	var withSlim, quiet bytes.Buffer
	if err := Main(context.Background(), []string{"--path", bin, "--client", "claude"}, &withSlim, &quiet); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(withSlim.String(), "-- "+slim+"\n") || strings.Contains(withSlim.String(), "--mcp") || quiet.Len() != 0 {
		t.Errorf("with gasoline-mcp beside gasoline-host, the configs run it (stderr %q):\n%s", quiet.String(), withSlim.String())
	}
	if err := Main(context.Background(), []string{"--client", "vscode"}, &out, &errOut); err == nil {
		t.Error("--client vscode: got nil error")
	}
	// The snippets carry the install's real agent credential (created on
	// first use, stable afterwards), and the stdio forms carry the
	// non-default home and port.
	tok, err := creds.Load(os.Getenv("GASOLINE_HOME"), creds.Agent)
	if err != nil {
		t.Fatalf("mcp-config did not create the agent credential: %v", err)
	}
	for _, want := range []string{"Bearer " + tok, `"GASOLINE_PORT": "7999"`, `"GASOLINE_HOME": "` + os.Getenv("GASOLINE_HOME") + `"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out.String(), "<token>") {
		t.Error("output carries a placeholder instead of the credential")
	}
	var again bytes.Buffer
	if err := Main(context.Background(), []string{"--path", bin, "--client", "cursor"}, &again, &errOut); err != nil || !strings.Contains(again.String(), tok) {
		t.Errorf("second run changed the credential: %v", err)
	}
}

// Issue 34, item 4: what users tripped on. The Codex one-liner carries
// the home and port (without them Codex started a second daemon on the
// defaults); the Gemini form says how to trust the folder and the server
// and that headless mode needs it; the Claude .mcp.json form says it is
// approved once.
func TestEachFormSaysWhatItsClientNeeds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX quoting")
	}
	tg := target
	tg.Env = map[string]string{"GASOLINE_HOME": "/home/a b/.g", "GASOLINE_PORT": "7999"}
	codex, _ := Snippet("codex", tg)
	if want := "codex mcp add gasoline --env 'GASOLINE_HOME=/home/a b/.g' --env GASOLINE_PORT=7999 -- '/home/a b/.local/bin/gasoline-mcp'\n"; !strings.Contains(codex, want) {
		t.Errorf("codex lacks %q:\n%s", want, codex)
	}
	gem, _ := Snippet("gemini", tg)
	for _, want := range []string{"trustedFolders.json", `"TRUST_FOLDER"`, "gemini -p", `"trust": true`} {
		if !strings.Contains(gem, want) {
			t.Errorf("gemini lacks %q:\n%s", want, gem)
		}
	}
	cl, _ := Snippet("claude", tg)
	if !strings.Contains(cl, "approve gasoline") || !strings.Contains(cl, "pending approval") {
		t.Errorf("claude's .mcp.json form does not say it is approved once:\n%s", cl)
	}
	for _, c := range []string{"json", "cursor"} {
		s, _ := Snippet(c, tg)
		if b := jsonBlocks(t, s); len(b) != 2 || server(t, b[1])["type"] != "http" || server(t, b[1])["url"] != tg.URL {
			t.Errorf("%s: the HTTP form must carry \"type\": \"http\":\n%s", c, s)
		}
	}
}

// A remote agent's forms are HTTP only, to the forwarded port, with its
// own credential, and Codex's sets the variable it reads.
func TestRemoteSnippets(t *testing.T) {
	tg := Target{URL: "http://127.0.0.1:7890/mcp", Token: "gsr_" + strings.Repeat("ab", 32)}
	for _, c := range RemoteClients {
		s, err := RemoteSnippet(c, tg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s, tg.Token) || !strings.Contains(s, tg.URL) || strings.Contains(s, "--mcp") {
			t.Errorf("%s:\n%s", c, s)
		}
	}
	s, _ := RemoteSnippet("codex", tg)
	if !strings.Contains(s, "export GASOLINE_TOKEN="+tg.Token+"\n") || !strings.Contains(s, "\nbearer_token_env_var = \"GASOLINE_TOKEN\"\n") {
		t.Errorf("codex remote:\n%s", s)
	}
	if _, err := RemoteSnippet("vscode", tg); err == nil {
		t.Error("unknown client accepted")
	}
}
