package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/session"
)

// A call handed to its client (still_processing) is answered by
// command_result after a daemon restart: with its result when it finished
// before, with command_lost when the daemon stopped while it ran.
func TestPendingResultsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	start := func(ctx context.Context) *Server {
		s, err := New(ctx, &Options{Version: "test", Dir: dir, Redact: fakeRedactor{}, Gate: refuseGate,
			Sessions: session.Options{File: filepath.Join(dir, session.FileName)}})
		if err != nil {
			t.Fatal(err)
		}
		s.Handle("observe", "page", func(ctx context.Context, c *Call) (any, error) {
			if c.Int("tab_id", 0) == 1 {
				<-release
				return map[string]any{"title": "finished before the restart"}, nil
			}
			<-ctx.Done() // runs until the daemon stops
			return nil, ctx.Err()
		})
		return s
	}
	ctx, stop := context.WithCancel(context.Background())
	s := start(ctx)
	sess, _, _, err := s.SessionManager().Claim("s1", session.Stdio, session.Binding{Principal: "agent", Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	handoff := func(tab int) string {
		res, _ := s.CallTool(ctx, sess, "observe", json.RawMessage(`{"what":"page","timeout_ms":1,"tab_id":`+strconv.Itoa(tab)+`}`))
		var p Processing
		raw, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(raw, &p) != nil || p.Status != "still_processing" {
			t.Fatalf("not handed off: %s", raw)
		}
		return p.CorrelationID
	}
	done, running := handoff(1), handoff(2)
	close(release)
	kept := keptPath(s.keepDir(), "s1", done)
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, _ := os.ReadFile(kept)
		if strings.Contains(string(raw), `"state":"complete"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the finished result was not kept: %s", raw)
		}
		time.Sleep(5 * time.Millisecond) // written by the command's waiter
	}
	stop()
	s.Wait()

	ctx2, stop2 := context.WithCancel(context.Background())
	defer func() { stop2(); s.Wait() }()
	s = start(ctx2)
	again := s.SessionManager().Get("s1")
	if again == nil {
		t.Fatal("the session was not restored")
	}
	res, _ := s.CallTool(ctx2, again, "observe", json.RawMessage(`{"what":"command_result","correlation_id":"`+done+`"}`))
	if res.IsError || !strings.Contains(ToolText(res), "finished before the restart") {
		t.Fatalf("the finished command's result: %s", ToolText(res))
	}
	if raw, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(raw), `"result":{"title":"finished before the restart"}`) {
		t.Fatalf("structured: %s", raw)
	}
	res, _ = s.CallTool(ctx2, again, "observe", json.RawMessage(`{"what":"command_result","correlation_id":"`+running+`"}`))
	if !res.IsError || !strings.Contains(ToolText(res), CodeCommandLost) {
		t.Fatalf("the command the daemon died running: %s", ToolText(res))
	}
}
