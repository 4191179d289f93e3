package mcpconfig_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The clients' CLIs, pinned in tools/clients (make clients installs them).
func clientsBin(t *testing.T) string {
	t.Helper()
	if os.Getenv("GASOLINE_CLIENTS") != "1" {
		t.Skip("set GASOLINE_CLIENTS=1 (make clients) to run the printed configs in Claude Code, Codex, Gemini CLI and the MCP Inspector")
	}
	bin, _ := filepath.Abs("../../tools/clients/node_modules/.bin")
	if _, err := os.Stat(filepath.Join(bin, "claude")); err != nil {
		t.Fatalf("the clients are not installed (make clients-deps): %v", err)
	}
	return bin
}

// world is a daemon on a non-default home and port, a fake HOME where
// the clients keep their config, and a project folder.
type world struct {
	t                               *testing.T
	host, slim, home, gasHome, proj string
	port                            int
	env                             []string
}

func newWorld(t *testing.T) *world {
	bin := clientsBin(t)
	w := &world{t: t, home: t.TempDir(), gasHome: t.TempDir(), proj: t.TempDir()}
	bins := t.TempDir() // both binaries side by side, as make build and the installer put them
	w.host, w.slim = filepath.Join(bins, "gasoline-host"), filepath.Join(bins, "gasoline-mcp")
	for pkg, out := range map[string]string{"../../host": w.host, "../../mcp": w.slim} {
		build := exec.Command("go", "build", "-o", out, pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	ln, _ := net.Listen("tcp4", "127.0.0.1:0")
	w.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	w.env = append(os.Environ(), "HOME="+w.home, "PATH="+bin+":"+os.Getenv("PATH"), "GASOLINE_HOME="+w.gasHome,
		"GASOLINE_PORT="+strconv.Itoa(w.port), "NO_COLOR=1", "CI=true")
	d := exec.Command(w.host, "daemon")
	d.Env = w.env
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Process.Kill(); d.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(w.port) + "/health"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon did not answer")
		}
		time.Sleep(20 * time.Millisecond) // a child process's port: nothing to wait on
	}
	return w
}

// run runs a shell line as the user would, in the project folder.
func (w *world) run(line string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir, cmd.Env = w.proj, w.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("%s: %v\n%s", line, err, out)
	}
	return string(out)
}

// config is what `gasoline-host mcp-config --client c` prints.
func (w *world) config(c string) string { return w.run(w.host + " mcp-config --client " + c) }

// lines are a snippet's lines that start with prefix.
func lines(s, prefix string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if strings.HasPrefix(l, prefix) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// blocks are a snippet's JSON documents (from a "{" line to a "}" line).
func blocks(s string) []string {
	var out []string
	var cur []string
	for l := range strings.Lines(s) {
		l = strings.TrimRight(l, "\n")
		if l == "{" {
			cur = []string{}
		}
		if cur != nil {
			cur = append(cur, l)
		}
		if l == "}" && cur != nil {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	return out
}

func (w *world) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(rel)
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.proj, rel)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// noStrayDaemon: nothing the clients ran started a second daemon on the
// default home (what Codex's one-liner did without --env).
func (w *world) noStrayDaemon() {
	w.t.Helper()
	if _, err := os.Stat(filepath.Join(w.home, ".local", "state", "gasoline", "state.json")); err == nil {
		w.t.Fatal("a client started a second daemon on the default home: its config lacks GASOLINE_HOME/GASOLINE_PORT")
	}
}

var connected = regexp.MustCompile(`(?m)^.*gasoline.*(✔ Connected|✓ Connected|- Connected)`)

// Issue 34, item 4, end to end: every config `gasoline-host mcp-config`
// prints (each runs gasoline-mcp, beside gasoline-host), run in its own
// client's CLI as a new user would, reaches the daemon: Claude Code (its one-liners; .mcp.json after its one-time
// approval, pending before), Codex (the one-liner and the TOML, as Codex
// parses them; what it would launch lists the 5 tools), Gemini CLI (in a
// trusted folder, disabled before, as the form says), Cursor's and the
// common JSON (the MCP Inspector lists the 5 tools). None starts a second
// daemon.
func TestPrintedConfigsWorkInTheirClients(t *testing.T) {
	w := newWorld(t)
	t.Run("claude", func(t *testing.T) {
		cfg := w.config("claude")
		adds := lines(cfg, "claude mcp add")
		if len(adds) != 2 {
			t.Fatalf("want the stdio and HTTP one-liners:\n%s", cfg)
		}
		for _, add := range adds {
			w.run(add)
			if out := w.run("claude mcp list"); !connected.MatchString(out) {
				t.Fatalf("%s\nclaude mcp list:\n%s", add, out)
			}
			w.run("claude mcp remove gasoline")
		}
		w.write(".mcp.json", blocks(cfg)[0])
		if out := w.run("claude mcp list"); !strings.Contains(strings.ToLower(out), "pending approval") {
			t.Fatalf(".mcp.json before approval (the form says it waits for it):\n%s", out)
		}
		w.approveMCPJSON() // what approving it in `claude` records
		if out := w.run("claude mcp list"); !connected.MatchString(out) {
			t.Fatalf(".mcp.json once approved:\n%s", out)
		}
		os.Remove(filepath.Join(w.proj, ".mcp.json"))
		w.noStrayDaemon()
	})
	t.Run("codex", func(t *testing.T) {
		cfg := w.config("codex")
		w.run(lines(cfg, "codex mcp add")[0])
		w.checkCodex(false)
		w.run("codex mcp remove gasoline")
		var toml []string
		for l := range strings.Lines(cfg) {
			if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "codex ") {
				toml = append(toml, l)
			}
		}
		w.write(filepath.Join(w.home, ".codex", "config.toml"), strings.Join(toml, ""))
		w.checkCodex(false)
		var http []string // the commented HTTP form, uncommented
		for _, l := range lines(cfg, "# ") {
			if strings.HasPrefix(l, "# [mcp_servers") || strings.HasPrefix(l, "# url") || strings.HasPrefix(l, "# bearer") {
				http = append(http, strings.TrimPrefix(l, "# "))
			}
		}
		w.write(filepath.Join(w.home, ".codex", "config.toml"), strings.Join(http, "\n")+"\n")
		w.checkCodex(true)
	})
	t.Run("gemini", func(t *testing.T) {
		cfg := w.config("gemini")
		for i, b := range blocks(cfg) {
			w.write(".gemini/settings.json", b)
			os.Remove(filepath.Join(w.home, ".gemini", "trustedFolders.json"))
			if out := w.run("GEMINI_CLI_TRUST_WORKSPACE= gemini mcp list"); i == 0 && !strings.Contains(out, "untrusted") {
				t.Fatalf("an untrusted folder (the form says to trust it):\n%s", out)
			}
			w.write(filepath.Join(w.home, ".gemini", "trustedFolders.json"), `{"`+w.proj+`": "TRUST_FOLDER"}`)
			if out := w.run("gemini mcp list"); !connected.MatchString(out) {
				t.Fatalf("form %d in a trusted folder:\n%s\n%s", i, b, out)
			}
		}
		w.noStrayDaemon()
	})
	for _, c := range []string{"cursor", "json"} {
		t.Run(c, func(t *testing.T) {
			for i, b := range blocks(w.config(c)) {
				f := filepath.Join(t.TempDir(), "mcp.json")
				w.write(f, b)
				out := w.run("inspector --cli --config " + f + " --server gasoline --method tools/list 2>/dev/null")
				if n := strings.Count(out, `"inputSchema"`); n != 5 {
					t.Fatalf("form %d: the Inspector listed %d tools:\n%s", i, n, out)
				}
			}
			w.noStrayDaemon()
		})
	}
}

// checkCodex reads the server as Codex parsed it (codex mcp list --json)
// and runs what Codex would: the stdio command with its env, or the URL
// with the bearer from the variable Codex reads.
func (w *world) checkCodex(httpForm bool) {
	w.t.Helper()
	var servers []struct {
		Name      string `json:"name"`
		Transport struct {
			Type      string            `json:"type"`
			Command   string            `json:"command"`
			Args      []string          `json:"args"`
			Env       map[string]string `json:"env"`
			URL       string            `json:"url"`
			BearerEnv string            `json:"bearer_token_env_var"`
		} `json:"transport"`
	}
	out := w.run("codex mcp list --json 2>/dev/null")
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &servers); err != nil || len(servers) != 1 {
		w.t.Fatalf("codex mcp list --json: %v\n%s", err, out)
	}
	tr := servers[0].Transport
	if httpForm {
		if tr.URL != "http://127.0.0.1:"+strconv.Itoa(w.port)+"/mcp" || tr.BearerEnv != "GASOLINE_TOKEN" {
			w.t.Fatalf("codex read %+v", tr)
		}
		tok := strings.TrimSpace(w.run(w.host + " token"))
		req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex-check","version":"1"}}}`
		hreq, _ := http.NewRequest("POST", tr.URL, strings.NewReader(req))
		hreq.Header.Set("Authorization", "Bearer "+tok)
		hreq.Header.Set("Content-Type", "application/json")
		hreq.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(hreq)
		if err != nil || resp.StatusCode != 200 {
			w.t.Fatalf("the URL Codex read, with the token it would send: %v %v", err, resp)
		}
		resp.Body.Close()
		return
	}
	if tr.Command != w.slim || len(tr.Args) != 0 || tr.Env["GASOLINE_HOME"] != w.gasHome || tr.Env["GASOLINE_PORT"] != strconv.Itoa(w.port) {
		w.t.Fatalf("codex read %+v: the one-liner must run gasoline-mcp and carry the home and port", tr)
	}
	cmd := exec.Command(tr.Command, tr.Args...)
	cmd.Env = []string{"HOME=" + w.home, "PATH=" + os.Getenv("PATH")}
	for k, v := range tr.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex-check","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	} {
		in.Write([]byte(msg + "\n"))
	}
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			if n := strings.Count(sc.Text(), `"inputSchema"`); n != 5 {
				w.t.Fatalf("what Codex launches listed %d tools", n)
			}
			w.noStrayDaemon()
			return
		}
	}
	w.t.Fatal("what Codex launches answered no tools/list")
}

// approveMCPJSON records the one-time approval of the project's .mcp.json
// server as a settings entry (enabledMcpjsonServers, Claude Code's
// "List of approved MCP servers from .mcp.json"), what approving it in
// `claude` amounts to.
func (w *world) approveMCPJSON() {
	w.t.Helper()
	w.write(filepath.Join(w.home, ".claude", "settings.json"), `{"enabledMcpjsonServers":["gasoline"]}`)
}
