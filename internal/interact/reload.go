package interact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// A tab whose page crashed, or that Chrome discarded, answers every call
// with tab_unloaded, whose advice is interact refresh. A CDP reload cannot
// reach a discarded tab, nor follow the engine's probes on a crashed page,
// so refresh reloads such a tab with the extension's tabs.reload and waits
// for its new page to load.

// unloaded reports a tab_unloaded error.
func unloaded(err error) bool {
	var te *tools.Error
	return errors.As(err, &te) && te.Code == tools.CodeTabUnloaded
}

// Reloaded is refresh's answer for a tab that had no live page.
type Reloaded struct {
	TabID  int    `json:"tab_id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Status string `json:"status"`
}

// reloadUnloaded reloads the session's tab with tabs.reload and waits
// (bounded by ctx) until Chrome reports its page loaded.
func (x *Interact) reloadUnloaded(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, err := x.tabs.Tab(c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	raw, err := x.link.Call(ctx, "tabs.reload", map[string]int{"tab_id": tab})
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	t, err := tabOf(raw)
	for delay := 20 * time.Millisecond; err == nil && t.Status != "complete"; delay = min(delay*2, 250*time.Millisecond) {
		select {
		case <-ctx.Done():
			return nil, &tools.Error{Code: tools.CodeTimeout, Retryable: true,
				Message: fmt.Sprintf("tab %d was reloaded but its page did not finish loading within the call's budget; observe page tells when it has", tab)}
		case <-time.After(delay): // Chrome's load state, read over the link
		}
		raw, err = x.link.Call(ctx, "tabs.get", map[string]int{"tab_id": t.ID})
		if err == nil {
			t, err = tabOf(raw)
		}
	}
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	r := Reloaded{TabID: t.ID, URL: t.URL, Title: t.Title, Status: t.Status}
	return mcpserver.PageResult(fmt.Sprintf("reloaded tab %d, which had no live page (it crashed or Chrome discarded it); it loaded %s", t.ID, t.URL), r,
		new(untrusted.Page).Add(t.URL, t.Title))
}

func tabOf(raw json.RawMessage) (tabs.Tab, error) {
	var r struct {
		Tab tabs.Tab `json:"tab"`
	}
	err := json.Unmarshal(raw, &r)
	return r.Tab, err
}
