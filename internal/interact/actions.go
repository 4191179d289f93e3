package interact

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

// do runs one interact mode of the engine on the call's tab (tab_id, or
// the session's current tab; a tab the session does not own is refused).
func (x *Interact) do(ctx context.Context, c *mcpserver.Call) (any, error) {
	r, err := x.run(ctx, c)
	if err != nil {
		return nil, err
	}
	return mcpserver.PageResult(r.Text(), r, r.PageText())
}

// run runs the call's mode in the engine, on the call's tab, and names
// the tabs the page opened meanwhile (popups).
func (x *Interact) run(ctx context.Context, c *mcpserver.Call) (*actions.Result, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	s, err := x.tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	mark := x.tabs.Mark()
	r, err := x.eng.Run(ctx, s.TabID(), c.Mode.Name, &c.Args)
	if err == nil {
		x.popups(ctx, c, s.TabID(), mark, r)
	}
	return r, err
}

// batch runs interact batch: refused as the gate would refuse it (the
// policy may have let it past without asking), then run in the engine.
func (x *Interact) batch(ctx context.Context, c *mcpserver.Call) (any, error) {
	if e := gate.CheckBatch(c); e != nil {
		return nil, e
	}
	return x.do(ctx, c)
}

// refresh reloads the page; a tab with no live page (crashed or
// discarded) is reloaded through the extension instead (reload.go).
func (x *Interact) refresh(ctx context.Context, c *mcpserver.Call) (any, error) {
	r, err := x.run(ctx, c)
	if unloaded(err) {
		return x.reloadUnloaded(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	return mcpserver.PageResult(r.Text(), r, r.PageText())
}

// handleDialog answers a dialog, with its type and the decision at the
// top of the answer.
func (x *Interact) handleDialog(ctx context.Context, c *mcpserver.Call) (any, error) {
	r, err := x.run(ctx, c)
	if err != nil {
		return nil, err
	}
	return mcpserver.PageResult(r.Text(), dialogAnswer(r), r.PageText())
}

// DialogAnswer is handle_dialog's structured answer: the action's result
// with the dialog's type and the decision at the top, as the tab
// manager's handle_dialog answered before the engine took it over.
type DialogAnswer struct {
	*actions.Result
	Type     string `json:"type,omitempty"`
	Accepted bool   `json:"accepted"`
}

func dialogAnswer(r *actions.Result) DialogAnswer {
	d := DialogAnswer{Result: r}
	if v, ok := r.Value.(map[string]any); ok {
		d.Type, _ = v["type"].(string)
		d.Accepted, _ = v["accepted"].(bool)
	}
	return d
}

// popups names the tabs the action's page opened, which the session
// adopted (tabs.Manager: a popup joins its opener's session). When the
// page opened windows the extension has not reported yet, it waits for
// them, bounded.
func (x *Interact) popups(ctx context.Context, c *mcpserver.Call, tab int, mark uint64, r *actions.Result) {
	for _, p := range x.tabs.AwaitPopups(ctx, c.Session.ID(), tab, mark, r.WindowsOpened) {
		r.OpenedTabs = append(r.OpenedTabs, actions.OpenedTab{TabID: p.TabID, URL: p.URL})
	}
}
