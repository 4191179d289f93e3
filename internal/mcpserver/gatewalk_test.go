package mcpserver

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// listedModes walks tools/list and returns every (tool, what) it offers,
// read from each tool's `what` enum.
func listedModes(t *testing.T, cs *mcp.ClientSession) [][2]string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for _, tl := range res.Tools {
		raw, _ := json.Marshal(tl.InputSchema)
		var schema struct {
			Properties struct {
				What struct {
					Enum []string `json:"enum"`
				} `json:"what"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil || len(schema.Properties.What.Enum) == 0 {
			t.Fatalf("%s: no what enum in its schema: %s", tl.Name, raw)
		}
		for _, w := range schema.Properties.What.Enum {
			out = append(out, [2]string{tl.Name, w})
		}
	}
	return out
}

// TestEveryListedModeClassifiedAndGated walks tools/list: every mode it
// offers is classified, every mutating or sensitive one reaches the gate
// and — refused there — never runs; every read-only one runs without it.
func TestEveryListedModeClassifiedAndGated(t *testing.T) {
	var mu sync.Mutex
	gated := map[string]int{}
	f := newFixture(t, &Options{Gate: func(_ context.Context, c *Call) *tools.Error {
		mu.Lock()
		gated[c.Mode.Key()]++
		mu.Unlock()
		return tools.Errorf("approval_required", "test gate says no")
	}})
	ran := map[string]int{}
	for _, tl := range tools.All() {
		for _, m := range tl.Modes {
			f.s.Handle(tl.Name, m.Name, func(_ context.Context, c *Call) (any, error) {
				mu.Lock()
				ran[c.Mode.Key()]++
				mu.Unlock()
				return map[string]any{"ok": true}, nil
			})
		}
	}
	cs := f.client(t)
	modes := listedModes(t, cs)
	total := 0
	for _, tl := range tools.All() {
		total += len(tl.Modes)
	}
	if len(modes) != total {
		t.Fatalf("tools/list offers %d modes, the table has %d", len(modes), total)
	}
	for _, tm := range modes {
		class, err := tools.Classify(tm[0], tm[1])
		if err != nil {
			t.Errorf("%s.%s: %v", tm[0], tm[1], err)
			continue
		}
		m, _ := tools.Lookup(tm[0], tm[1])
		args := m.Example()
		args["what"] = tm[1]
		res, sc := call(t, cs, tm[0], args)
		key := m.Key()
		mu.Lock()
		g, r := gated[key], ran[key]
		mu.Unlock()
		if class.Gated() {
			if g != 1 || r != 0 || !res.IsError || sc["code"] != "approval_required" {
				t.Errorf("%s (%s): gate calls %d, handler runs %d, result %v; want the gate once and no run", key, class, g, r, sc)
			}
			continue
		}
		if g != 0 || r != 1 || res.IsError {
			t.Errorf("%s (read-only): gate calls %d, handler runs %d, error %v; want no gate and one run", key, g, r, res.IsError)
		}
	}
}
