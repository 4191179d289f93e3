package bridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The interact modes that manage the session's tabs: new_tab, navigate,
// switch_tab and close_tab. The actions engine's modes are in interact.go.

// TabResult is the answer of new_tab, navigate and switch_tab.
type TabResult struct {
	TabID     int    `json:"tab_id"`
	GroupID   int    `json:"group_id"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	WaitUntil string `json:"wait_until,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms,omitempty"`
}

func tabResult(t tabs.Tab, nav *tabs.NavResult) TabResult {
	r := TabResult{TabID: t.ID, GroupID: t.GroupID, URL: t.URL, Title: t.Title}
	if nav != nil {
		r.URL, r.Title, r.WaitUntil, r.ElapsedMS = nav.URL, nav.Title, nav.WaitUntil, nav.ElapsedMS
	}
	return r
}

func (r TabResult) text(verb string) string {
	s := fmt.Sprintf("%s tab %d: %s %q", verb, r.TabID, r.URL, r.Title)
	if r.WaitUntil != "" {
		s += fmt.Sprintf(" (%s after %d ms)", r.WaitUntil, r.ElapsedMS)
	}
	return s
}

func clientName(c *mcpserver.Call) string { return c.Session.Info().Client.Name }

func (b *browser) newTab(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	t, nav, err := b.tabs.Open(ctx, c.Session, clientName(c), c.Str("url"), c.Str("wait_until"))
	if err != nil {
		return nil, err
	}
	r := tabResult(t, nav)
	return observe.Result(r.text("opened")+fmt.Sprintf(" in group %q", tabs.GroupTitle(clientName(c))), r)
}

func (b *browser) navigate(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	unlock, err := b.act.lockTab(ctx, c) // never in the middle of an action
	if err != nil {
		return nil, err
	}
	defer unlock()
	t, nav, err := b.tabs.Navigate(ctx, c.Session, clientName(c), c.Int("tab_id", 0), c.Str("url"), c.Str("wait_until"))
	if err != nil {
		return nil, err
	}
	r := tabResult(t, nav)
	return observe.Result(r.text("navigated"), r)
}

func (b *browser) switchTab(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	id, err := b.tabs.Switch(c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	r := TabResult{TabID: id, GroupID: b.tabs.Registry().Group(c.Session.ID()), URL: b.tabs.URL(id)}
	if raw, err := b.link.Call(ctx, "tabs.get", map[string]int{"tab_id": id}); err == nil {
		var res struct {
			Tab tabs.Tab `json:"tab"`
		}
		if json.Unmarshal(raw, &res) == nil {
			r.URL, r.Title = res.Tab.URL, res.Tab.Title
		}
	}
	return observe.Result(r.text("current"), r)
}

// CloseResult is close_tab's answer.
type CloseResult struct {
	Closed  int `json:"closed"`
	Current int `json:"current_tab"` // 0: the session has no tab left
}

func (b *browser) closeTab(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	id, err := b.tabs.Close(ctx, c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	r := CloseResult{Closed: id}
	if left := b.tabs.Registry().Tabs(c.Session.ID()); len(left) > 0 {
		r.Current = left[0]
	}
	text := fmt.Sprintf("closed tab %d", id)
	if r.Current != 0 {
		text += fmt.Sprintf("; current tab is now %d", r.Current)
	} else {
		text += "; this session has no tab left"
	}
	return observe.Result(text, r)
}

// scope names what a gated call acts on, for the approval engine: the tab
// (the session's current one unless tab_id names another) and its origin
// (the destination for navigation), a line for the prompt that says what
// the action does to which element (click button "Pay now"), and for a
// batch one such line per step.
func (b *browser) scope(c *mcpserver.Call, p plan) (approval.Scope, string, []string) {
	var sc approval.Scope
	if tab, ok := b.tabs.Resolve(c.Session.ID(), c.Int("tab_id", 0)); ok && c.Mode.Name != "new_tab" {
		sc.TabID = tab
	}
	if u := c.Str("url"); u != "" {
		sc.Origin = originOf(u)
		return sc, fmt.Sprintf("%s to %s", c.Mode.Key(), sc.Origin), nil
	}
	if sc.TabID == 0 {
		return sc, c.Mode.Key(), nil
	}
	sc.Origin = originOf(b.tabs.URL(sc.TabID))
	where := fmt.Sprintf(" on tab %d (%s)", sc.TabID, sc.Origin)
	if c.Mode.Tool != "interact" {
		return sc, c.Mode.Key() + where, nil
	}
	// Naming elements waits in the tab's queue: bounded, and a prompt
	// without a name is better than a late one.
	ctx, cancel := context.WithTimeout(context.Background(), describeWait)
	defer cancel()
	if p.steps != nil {
		lines := make([]string, len(p.steps))
		for i, st := range p.steps {
			lines[i] = b.stepPhrase(ctx, sc.TabID, st.what, st.args)
		}
		return sc, fmt.Sprintf("a batch of %d steps%s", len(lines), where), lines
	}
	var a actions.Args
	if raw, err := json.Marshal(c.Args); err == nil {
		json.Unmarshal(raw, &a)
	}
	return sc, b.stepPhrase(ctx, sc.TabID, c.Mode.Name, a) + where, nil
}

// stepPhrase says what one action does, naming its elements.
func (b *browser) stepPhrase(ctx context.Context, tab int, what string, a actions.Args) string {
	desc := b.act.describe(ctx, tab, actions.Target{Ref: a.Ref, Selector: a.Selector, Frame: a.Frame})
	to := ""
	if what == "drag" {
		to = b.act.describe(ctx, tab, actions.Target{Ref: a.ToRef, Selector: a.ToSelector, Frame: a.Frame})
	}
	return phrase(what, a, desc, to)
}

// precheck refuses, before the approval gate, an interact call on a tab
// the session cannot use (another session's, the user's, a closed one, or
// none yet), so the user is never asked to approve a call that cannot run.
// navigate without tab_id in a session with no tab and new_tab open a tab
// and pass.
func (b *browser) precheck(c *mcpserver.Call) *tools.Error {
	if c.Mode.Tool != "interact" || c.Mode.Name == "new_tab" {
		return nil
	}
	tab := c.Int("tab_id", 0)
	if c.Mode.Name == "navigate" && tab == 0 && len(b.tabs.Registry().Tabs(c.Session.ID())) == 0 {
		return nil
	}
	return b.tabs.Check(c.Session.ID(), tab)
}
