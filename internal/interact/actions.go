package interact

import (
	"context"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// do runs one interact mode of the engine on the call's tab (tab_id, or
// the session's current tab; a tab the session does not own is refused).
func (x *Interact) do(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	if c.Mode.Name == "batch" {
		if e := gate.CheckBatch(c); e != nil {
			return nil, e // the gate refuses it too, unless the policy let it past without asking
		}
	}
	s, err := x.tabs.Session(ctx, c.Session.ID(), c.Int("tab_id", 0))
	if c.Mode.Name == "refresh" && unloaded(err) {
		return x.reloadUnloaded(ctx, c) // reload.go
	}
	if err != nil {
		return nil, err
	}
	args, err := mcpserver.Decoded[actions.Args](c) // the gate decoded it already
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidArgument, "arguments of interact %s: %v", c.Mode.Name, err)
	}
	mark := x.tabs.Mark()
	r, err := x.eng.Run(ctx, s.TabID(), c.Mode.Name, args)
	if err == nil {
		x.popups(ctx, c, s.TabID(), mark, r)
	}
	if c.Mode.Name == "refresh" && unloaded(err) {
		return x.reloadUnloaded(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	if c.Mode.Name == "handle_dialog" {
		return mcpserver.PageResult(r.Text(), dialogAnswer(r), r.PageText())
	}
	return mcpserver.PageResult(r.Text(), r, r.PageText())
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
