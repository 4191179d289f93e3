package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/session"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestEvictedResult: results are capped by bytes as they are added; the
// correlation id of an evicted one answers result_evicted saying why, and
// a still-running command is never evicted.
func TestEvictedResult(t *testing.T) {
	f := newFixture(t, &Options{Sessions: session.Options{MaxResultBytes: 3 << 20}})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the fixture's cleanup
	f.s.Handle("observe", "page", func(ctx context.Context, c *Call) (any, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"title": "late"}, nil
	})
	f.s.Handle("observe", "storage", func(ctx context.Context, c *Call) (any, error) {
		return map[string]any{"blob": strings.Repeat("x", 1<<20)}, nil // ~2 MiB retained: text + structuredContent
	})
	cs := f.client(t)
	_, slow := call(t, cs, "observe", map[string]any{"what": "page", "background": true})
	ids := []string{slow["correlation_id"].(string)}
	for range 3 { // one after the other, so the order they finish in is known
		_, bg := call(t, cs, "observe", map[string]any{"what": "storage", "background": true})
		id := bg["correlation_id"].(string)
		<-f.s.mustCommand(t, cs, id).Done()
		ids = append(ids, id)
	}
	if b, n := f.s.sessions.RetainedBytes(); n != 1 || b > 3<<20 {
		t.Fatalf("retained %d results, %d bytes; want the newest alone under the 3 MiB cap", n, b)
	}
	res, r := call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": ids[1]})
	if !res.IsError || r["code"] != tools.CodeResultEvicted || !strings.Contains(r["message"].(string), "MiB of finished results across all sessions") {
		t.Fatalf("evicted correlation id = %v", r)
	}
	_, r = call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": ids[3]})
	if r["status"] != "complete" {
		t.Fatalf("newest result = %v", r)
	}
	_, r = call(t, cs, "observe", map[string]any{"what": "command_result", "correlation_id": ids[0]})
	if r["status"] != "still_processing" {
		t.Fatalf("running command = %v", r)
	}
}
