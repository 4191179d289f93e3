//go:build linux

package e2e

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// soakChurn is the soak's fifth agent: it comes and goes, as agents do on
// a developer's machine. Each round it starts an MCP session over HTTP,
// opens a tab, makes one round of the soak's calls on it, closes the tab
// and ends the session. What a tab or a session held must go with it:
// the per-tab and per-session stores of the memory report stay flat.
func soakChurn(ctx context.Context, s *spawned, token, page string, st *soakStats) {
	for ctx.Err() == nil {
		soakChurnRound(ctx, s, token, page, st)
	}
}

func soakChurnRound(ctx context.Context, s *spawned, token, page string, st *soakStats) {
	call := context.WithoutCancel(ctx)
	start := time.Now()
	tr := &mcp.StreamableClientTransport{Endpoint: "http://127.0.0.1:" + s.port + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "soak-churn", Version: "1.0"}, nil).Connect(call, tr, nil)
	st.record("churn.session_start", time.Since(start), nil, err)
	if err != nil {
		return
	}
	defer func() {
		start := time.Now()
		err := cs.Close()
		st.record("churn.session_end", time.Since(start), nil, err)
	}()
	start = time.Now()
	res, err := cs.CallTool(call, &mcp.CallToolParams{Name: "interact", Arguments: map[string]any{"what": "new_tab", "url": page}})
	st.record("churn.new_tab", time.Since(start), res, err)
	tab := 0
	if err == nil && !res.IsError {
		if m, ok := res.StructuredContent.(map[string]any); ok {
			f, _ := m["tab_id"].(float64)
			tab = int(f)
		}
	}
	if tab == 0 {
		return
	}
	for _, c := range soakCalls(tab, page) {
		key, args := c[0].(string), c[1].(map[string]any)
		tool, _, _ := strings.Cut(key, ".")
		start := time.Now()
		res, err := cs.CallTool(call, &mcp.CallToolParams{Name: tool, Arguments: args})
		st.record("churn."+key, time.Since(start), res, err)
	}
	start = time.Now()
	res, err = cs.CallTool(call, &mcp.CallToolParams{Name: "interact", Arguments: map[string]any{"what": "close_tab", "tab_id": tab}})
	st.record("churn.close_tab", time.Since(start), res, err)
}
