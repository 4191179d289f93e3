package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func TestToolsListDerivedFromTable(t *testing.T) {
	f := newFixture(t, nil)
	res, err := f.client(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, got := range res.Tools {
		names = append(names, got.Name)
		want, _ := tools.Get(got.Name)
		h := want.Hints()
		a := got.Annotations
		if a == nil || a.ReadOnlyHint != h.ReadOnly || *a.DestructiveHint != h.Destructive || a.IdempotentHint != h.Idempotent || *a.OpenWorldHint != h.OpenWorld {
			t.Errorf("%s annotations %+v, want %+v", got.Name, a, h)
		}
		raw, _ := json.Marshal(got.InputSchema)
		var g, w any
		json.Unmarshal(raw, &g)
		json.Unmarshal(want.InputSchema(), &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s schema differs from the table's", got.Name)
		}
		if got.Description != want.Description() {
			t.Errorf("%s description differs from the table's", got.Name)
		}
	}
	slices.Sort(names)
	if want := []string{"analyze", "configure", "generate", "interact", "observe"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
}

func TestDispatchErrors(t *testing.T) {
	f := newFixture(t, nil)
	f.s.Handle("interact", "navigate", func(context.Context, *Call) (any, error) { return map[string]any{"ok": true}, nil })
	cs := f.client(t)
	tests := []struct {
		name string
		tool string
		args map[string]any
		code string
		msg  string
	}{
		{"unknown mode", "observe", map[string]any{"what": "snapshots"}, tools.CodeUnknownMode, "did you mean"},
		{"bad argument", "interact", map[string]any{"what": "navigate", "url": 3}, tools.CodeInvalidArgument, "url must be a string"},
		{"not available", "observe", map[string]any{"what": "snapshot"}, tools.CodeNotAvailable, "is not served by this daemon (the part behind it did not start: configure doctor and the daemon log say why); use configure describe_capabilities, configure doctor, configure health"},
		{"gated without engine", "interact", map[string]any{"what": "navigate", "url": "https://example.com/"}, codeNoApprover, "needs the user's approval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, sc := call(t, cs, tt.tool, tt.args)
			if !res.IsError || sc["code"] != tt.code || !strings.Contains(sc["message"].(string), tt.msg) {
				t.Fatalf("got isError=%v %v\nwant code %s containing %q", res.IsError, sc, tt.code, tt.msg)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !strings.HasPrefix(text, tt.code+": ") {
				t.Errorf("text %q does not start with the code", text)
			}
			if _, ok := sc["retryable"]; !ok {
				t.Error("no retryable field")
			}
		})
	}
	// Unknown tool is a protocol error, not a tool error.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("unknown tool: %v", err)
	}
}

func TestGateAllows(t *testing.T) {
	var gated []string
	f := newFixture(t, &Options{Gate: func(_ context.Context, c *Call) *tools.Error {
		gated = append(gated, c.Mode.Key())
		return nil
	}})
	f.s.Handle("interact", "navigate", func(_ context.Context, c *Call) (any, error) { return map[string]any{"url": c.Str("url")}, nil })
	res, sc := call(t, f.client(t), "interact", map[string]any{"what": "navigate", "url": "https://example.com/"})
	if res.IsError || sc["url"] != "https://example.com/" || !slices.Equal(gated, []string{"interact.navigate"}) {
		t.Fatalf("res %v %v gated %v", res.IsError, sc, gated)
	}
}

func TestHealthAndDescribe(t *testing.T) {
	f := newFixture(t, &Options{Version: "9.9.9", Daemon: func() Daemon { return Daemon{PID: 42, Extension: true} }})
	cs := f.client(t)
	_, h := call(t, cs, "configure", map[string]any{"what": "health"})
	if h["version"] != "9.9.9" || h["pid"] != 42.0 || dig(h, "transport_status", "extension") != "connected" ||
		dig(h, "caller", "client", "name") != "unit" || dig(h, "modes", "served") != 5.0 {
		t.Errorf("health = %v", h)
	}
	_, d := call(t, cs, "configure", map[string]any{"what": "describe_capabilities", "tool": "interact", "mode": "navigate"})
	if d["class"] != "mutating" || d["available"] != false || dig(d, "example", "url") == nil {
		t.Errorf("describe navigate = %v", d)
	}
	_, d = call(t, cs, "configure", map[string]any{"what": "describe_capabilities"})
	if len(d["tools"].([]any)) != 5 || len(d["served"].([]any)) != 5 {
		t.Errorf("describe all = %v", d)
	}
	res, d := call(t, cs, "configure", map[string]any{"what": "describe_capabilities", "tool": "observe", "mode": "nope"})
	if !res.IsError || d["code"] != tools.CodeUnknownMode {
		t.Errorf("describe unknown mode = %v", d)
	}
}

func TestDoctor(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: the unwritable-directory case cannot fail; checking the rest")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o500)
	f := newFixture(t, &Options{Dir: dir})
	_, doc := call(t, f.client(t), "configure", map[string]any{"what": "doctor"})
	checks := map[string]map[string]any{}
	for _, c := range doc["checks"].([]any) {
		checks[c.(map[string]any)["name"].(string)] = c.(map[string]any)
	}
	if doc["ok"] != false || checks["extension_connected"]["ok"] != false || checks["extension_connected"]["fix"] == "" {
		t.Errorf("doctor = %v", doc)
	}
	if os.Geteuid() != 0 && (checks["state_dir_writable"]["ok"] != false || !strings.Contains(checks["state_dir_writable"]["fix"].(string), dir)) {
		t.Errorf("state dir check = %v", checks["state_dir_writable"])
	}
	if checks["tool_registry"]["ok"] != true {
		t.Errorf("tool_registry = %v", checks["tool_registry"])
	}
	// The test redactor masks only "SECRET": the self-test catches it.
	if checks["redaction"]["ok"] != false || checks["redaction"]["fix"] == "" {
		t.Errorf("redaction with a redactor that masks nothing real = %v", checks["redaction"])
	}
	for _, c := range checks {
		if c["ok"] == true && c["name"] != "tool_registry" && c["name"] != "state_dir_writable" {
			t.Errorf("check %v passed where this fixture must fail it", c)
		}
	}

	// The real gateway with the default policy passes.
	eng, err := redact.New(redact.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	gw := &redact.Gateway{Engine: func() (*redact.Engine, error) { return eng, nil }, Stage: redact.StageServer}
	f = newFixture(t, &Options{Redact: gw})
	_, doc = call(t, f.client(t), "configure", map[string]any{"what": "doctor"})
	for _, c := range doc["checks"].([]any) {
		if c := c.(map[string]any); c["name"] == "redaction" && c["ok"] != true {
			t.Errorf("redaction with the real gateway = %v", c)
		}
	}
}

// TestAsync: a call past its budget answers still_processing; the result
// comes later from command_result; pending_commands lists commands after
// a cursor; background answers at once.
func TestAsync(t *testing.T) {
	f := newFixture(t, nil)
	release := make(chan struct{})
	f.s.Handle("observe", "page", func(ctx context.Context, c *Call) (any, error) {
		select {
		case <-release:
			return map[string]any{"title": "Example"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	cs := f.client(t)
	_, p := call(t, cs, "observe", map[string]any{"what": "page", "timeout_ms": 1})
	id, _ := p["correlation_id"].(string)
	if p["status"] != "still_processing" || id == "" || dig(p, "next_action", "arguments", "correlation_id") != id {
		t.Fatalf("slow call = %v", p)
	}
	_, r := call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": id})
	if r["status"] != "still_processing" {
		t.Fatalf("command_result while running = %v", r)
	}
	_, bg := call(t, cs, "observe", map[string]any{"what": "page", "background": true})
	_, list := call(t, cs, "observe", map[string]any{"what": "pending_commands"})
	cmds := list["commands"].([]any)
	if len(cmds) != 2 || dig(cmds[0], "status") != "pending" || list["cursor"] != "2" {
		t.Fatalf("pending_commands = %v", list)
	}
	close(release)
	for _, cid := range []string{id, bg["correlation_id"].(string)} {
		res, r := call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": cid, "timeout_ms": 5000})
		for r["status"] == "still_processing" { // the handler is released; it finishes promptly
			<-f.s.mustCommand(t, cs, cid).Done()
			res, r = call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": cid})
		}
		if res.IsError || r["status"] != "complete" || dig(r, "result", "title") != "Example" {
			t.Fatalf("command_result = %v", r)
		}
	}
	_, after := call(t, cs, "observe", map[string]any{"what": "pending_commands", "after_cursor": "1"})
	if n := len(after["commands"].([]any)); n != 1 {
		t.Errorf("pending_commands after 1: %d commands, want 1", n)
	}
	res, r := call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": "c_nope"})
	if !res.IsError || r["code"] != tools.CodeUnknownCommand {
		t.Errorf("unknown correlation id = %v", r)
	}
}

// mustCommand finds a command of the client's session.
func (s *Server) mustCommand(t *testing.T, cs *mcp.ClientSession, id string) interface{ Done() <-chan struct{} } {
	t.Helper()
	for ss := range s.mcp.Sessions() {
		if sess := s.sessions.Get(sessionKey(ss)); sess != nil {
			if c, ok := sess.Command(id); ok {
				return c
			}
		}
	}
	t.Fatalf("no command %s", id)
	return nil
}

func TestHandlerPanicIsAToolError(t *testing.T) {
	f := newFixture(t, nil)
	f.s.Handle("observe", "vitals", func(context.Context, *Call) (any, error) { panic("boom") })
	res, sc := call(t, f.client(t), "observe", map[string]any{"what": "vitals"})
	if !res.IsError || sc["code"] != tools.CodeInternal {
		t.Fatalf("panic → %v", sc)
	}
}

func TestSDKLoggerOmitsInternalErrorDetail(t *testing.T) {
	var b strings.Builder
	l := sdkLogger(slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})))
	l.Info("server session connected")
	l.Error("jsonrpc2 internal error", "error", `returned {"secret":"page text"}`)
	l.Warn("calling ping: closed")
	got := b.String()
	if strings.Contains(got, "secret") || strings.Contains(got, "session connected") || !strings.Contains(got, "calling ping") {
		t.Errorf("log:\n%s", got)
	}
}

// TestQuickModeRunsWithoutACommand: a mode registered with HandleQuick
// answers on the request (no session command: pending_commands lists
// nothing), and with background it still runs as a command whose result
// command_result returns.
func TestQuickModeRunsWithoutACommand(t *testing.T) {
	f := newFixture(t, nil)
	f.s.HandleQuick("observe", "logs", func(context.Context, *Call) (any, error) {
		return map[string]any{"entries": []string{"x"}}, nil
	})
	cs := f.client(t)
	res, sc := call(t, cs, "observe", map[string]any{"what": "logs"})
	if res.IsError || sc["entries"] == nil {
		t.Fatalf("logs = %v", sc)
	}
	if _, pc := call(t, cs, "observe", map[string]any{"what": "pending_commands"}); len(pc["commands"].([]any)) != 0 {
		t.Fatalf("a quick read left a command: %v", pc)
	}
	_, bg := call(t, cs, "observe", map[string]any{"what": "logs", "background": true})
	cid, _ := bg["correlation_id"].(string)
	if bg["status"] != "still_processing" || cid == "" {
		t.Fatalf("background quick read = %v", bg)
	}
	<-f.s.mustCommand(t, cs, cid).Done()
	if _, r := call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": cid}); r["status"] != "complete" {
		t.Fatalf("command_result = %v", r)
	}
}
