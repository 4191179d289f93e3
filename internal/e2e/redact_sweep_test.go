//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The planted-secret sweep (SAFETY.md, "Redaction gateway"; issue 6): the
// synthetic corpus is planted by testdata/pages/secrets/plant.html in
// console logs, URLs, headers, request and response bodies, WebSocket
// frames, localStorage, sessionStorage, cookies and form fields of a real
// page; every observe, analyze and generate mode this build serves reads it
// back over both transports; no planted secret may appear in any response,
// the daemon's log, the audit log or any file the daemon wrote, and the
// look-alike negatives must come through untouched.

type sweepSecret struct {
	Class  string `json:"class"`
	Value  string `json:"value"`
	Secret string `json:"secret"`
}

type sweepNegative struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

func loadSweep[T any](t *testing.T, name string) []T {
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "testdata", "secrets", name))
	require.NoError(t, err)
	var out []T
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

// stdioClient connects an MCP client through `gasoline-host --mcp`.
func stdioClient(t *testing.T, c *Chain, name string) *client {
	cmd := exec.Command(hostBin, "--mcp")
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// sweepArgs builds a valid call of m on tab: its minimal example, plus
// tab_id and a generous limit where the mode takes them.
func sweepArgs(m *tools.Mode, tab int) map[string]any {
	args := m.Example()
	args["what"] = m.Name
	takes := map[string]bool{}
	for _, a := range m.Args {
		takes[a.Name] = true
	}
	if tl, ok := tools.Get(m.Tool); ok {
		for _, a := range tl.Common {
			takes[a] = true
		}
	}
	if takes["tab_id"] {
		args["tab_id"] = tab
	}
	if takes["limit"] {
		args["limit"] = 1000
	}
	if m.Key() == "observe.network_bodies" {
		delete(args, "request_id")
		args["url"] = "/api/echo"
	}
	return args
}

// sweep calls every served observe/analyze/generate mode (and a few
// variants) on tab and returns every answer's full JSON.
func sweep(t *testing.T, c *client, tab int) (outputs []string, modes []string) {
	d := c.ok("configure", map[string]any{"what": "describe_capabilities"})
	for _, s := range asSlice(d.Data["served"]) {
		tool, what, _ := strings.Cut(s.(string), " ")
		if tool != "observe" && tool != "analyze" && tool != "generate" {
			continue
		}
		m, ok := tools.Lookup(tool, what)
		require.True(t, ok, s)
		calls := []map[string]any{sweepArgs(m, tab)}
		for _, p := range m.Args {
			switch p.Name {
			case "to_file": // the export path: files are swept too
				a := sweepArgs(m, tab)
				a["to_file"] = true
				calls = append(calls, a)
			case "summary":
				a := sweepArgs(m, tab)
				a["summary"] = true
				calls = append(calls, a)
			}
		}
		for _, args := range calls {
			res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
			require.NoError(t, err, "%s %v", s, args)
			raw, _ := json.Marshal(res)
			outputs = append(outputs, string(raw))
		}
		modes = append(modes, tool+"."+what)
	}
	return outputs, modes
}

// decoded returns s followed by every string decoded from it as JSON (at
// any depth, JSON inside strings included), so escapes cannot hide a
// value.
func decoded(s string) string {
	var b strings.Builder
	b.WriteString(s)
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch x := v.(type) {
		case string:
			b.WriteString("\n" + x)
			var inner any
			if depth < 4 && json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner, depth+1)
			}
		case map[string]any:
			for k, y := range x {
				b.WriteString("\n" + k)
				walk(y, depth)
			}
		case []any:
			for _, y := range x {
				walk(y, depth)
			}
		}
	}
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		walk(v, 0)
	}
	return b.String()
}

// leaks lists the corpus secrets found in text, in any encoding a page or
// a URL gives them.
func leaks(corpus []sweepSecret, text string) []string {
	var out []string
	for _, c := range corpus {
		forms := []string{c.Secret, url.QueryEscape(c.Secret), strings.ReplaceAll(url.QueryEscape(c.Secret), "+", "%20")}
		for _, f := range forms {
			if k := strings.Index(text, f); k >= 0 {
				out = append(out, c.Class+": "+c.Secret+" in …"+text[max(0, k-80):min(len(text), k+len(f)+20)]+"…")
				break
			}
		}
	}
	return out
}

func TestE2ERedactSweep(t *testing.T) {
	t.Setenv(redact.EnvPolicy, filepath.Join(RepoRoot(), "testdata", "secrets", "policy.json"))
	corpus := loadSweep[sweepSecret](t, "corpus.json")
	negatives := loadSweep[sweepNegative](t, "negatives.json")
	require.GreaterOrEqual(t, len(corpus), 200)

	r := startRelay(t, ChainOptions{})
	clients := map[string]*client{"http": r.client(t, "sweep-http"), "stdio": stdioClient(t, r.Chain, "sweep-stdio")}
	var all []string
	for _, name := range []string{"http", "stdio"} {
		c := clients[name]
		tab := c.newTab(r.url("pages/secrets/plant.html"))
		logs := c.until("logs", map[string]any{"tab_id": tab, "text": "plant:done"}, 90*time.Second, func(x answer) bool { return hasText(x, "plant:done") })
		t.Logf("%s: %s", name, list(logs, "entries")[0]["text"])
		c.until("network_waterfall", map[string]any{"tab_id": tab, "url": "/api/echo", "limit": 1000}, 60*time.Second,
			func(x answer) bool { return len(list(x, "requests")) >= len(corpus) })

		outputs, modes := sweep(t, c, tab)
		t.Logf("%s: %d modes swept: %s", name, len(modes), strings.Join(modes, " "))
		require.Contains(t, modes, "observe.logs")
		for i, out := range outputs {
			if l := leaks(corpus, decoded(out)); len(l) > 0 {
				t.Errorf("%s: answer %d leaks %d secrets, e.g. %v\n%.600s", name, i, len(l), l[:min(3, len(l))], out)
			}
		}
		all = append(all, outputs...)

		// The negatives come through the console untouched.
		neg := c.observe("logs", map[string]any{"tab_id": tab, "text": "note: ", "limit": 1000})
		text := decoded(neg.Text + "\n" + mustJSON(t, neg.Data))
		for _, n := range negatives {
			if !strings.Contains(text, "note: "+n.Value) {
				t.Errorf("%s: negative %s %q was changed", name, n.Kind, n.Value)
			}
		}
	}

	// Every file the daemon wrote: its log, the audit log, exports.
	var files []string
	filepath.WalkDir(r.Home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	require.True(t, slices.ContainsFunc(files, func(p string) bool { return strings.HasSuffix(p, "audit.jsonl") }), "%v", files)
	for _, p := range files {
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		if l := leaks(corpus, decoded(string(raw))); len(l) > 0 {
			t.Errorf("%s leaks %d secrets, e.g. %v", p, len(l), l[:min(3, len(l))])
		}
	}
	t.Logf("%d answers and %d files swept", len(all), len(files))
}

func mustJSON(t *testing.T, v any) string {
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}
