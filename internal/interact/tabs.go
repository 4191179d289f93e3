package interact

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// The interact modes that manage the session's tabs: new_tab, navigate,
// switch_tab and close_tab. The actions engine's modes are in actions.go.

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

// page is the page text of the answer: the tab's URL and title.
func (r TabResult) page() *untrusted.Page { return new(untrusted.Page).Add(r.URL, r.Title) }

func clientName(c *mcpserver.Call) string { return c.Session.Info().Client.Name }

func (x *Interact) newTab(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	t, nav, err := x.tabs.Open(ctx, c.Session, tabs.Req{Client: clientName(c), Browser: c.Str("browser"), URL: c.Str("url"), Wait: c.Str("wait_until")})
	if err != nil {
		return nil, err
	}
	r := tabResult(t, nav)
	return mcpserver.PageResult(r.text("opened")+fmt.Sprintf(" in group %q", tabs.GroupTitle(clientName(c))), r, r.page())
}

func (x *Interact) navigate(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	unlock, err := x.lockTab(ctx, c) // never in the middle of an action
	if err != nil {
		return nil, err
	}
	defer unlock()
	if tab, ok := x.tabs.Resolve(c.Session.ID(), c.Int("tab_id", 0)); ok {
		if ds := x.capture.OpenDialogs(tab); len(ds) > 0 { // Page.navigate would wait for it
			d := ds[len(ds)-1]
			return nil, tabs.DialogOpen(tab, d.Type, d.Message, "it was open before navigating")
		}
	}
	t, nav, err := x.tabs.Navigate(ctx, c.Session, tabs.Req{Client: clientName(c), Browser: c.Str("browser"), Tab: c.Int("tab_id", 0),
		URL: c.Str("url"), Wait: c.Str("wait_until")})
	if err != nil {
		return nil, err
	}
	r := tabResult(t, nav)
	return mcpserver.PageResult(r.text("navigated"), r, r.page())
}

func (x *Interact) switchTab(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	id, err := x.tabs.Switch(c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	r := TabResult{TabID: id, GroupID: x.tabs.Registry().Group(c.Session.ID(), browsers.SlotOf(id)), URL: x.tabs.URL(id)}
	if raw, err := x.link.Call(ctx, "tabs.get", map[string]int{"tab_id": id}); err == nil {
		var res struct {
			Tab tabs.Tab `json:"tab"`
		}
		if json.Unmarshal(raw, &res) == nil {
			r.URL, r.Title = res.Tab.URL, res.Tab.Title
		}
	}
	return mcpserver.PageResult(r.text("current"), r, r.page())
}

// CloseResult is close_tab's answer.
type CloseResult struct {
	Closed  int `json:"closed"`
	Current int `json:"current_tab"` // 0: the session has no tab left
}

func (x *Interact) closeTab(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	id, err := x.tabs.Close(ctx, c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	r := CloseResult{Closed: id}
	if left := x.tabs.Registry().Tabs(c.Session.ID()); len(left) > 0 {
		r.Current = left[0]
	}
	text := fmt.Sprintf("closed tab %d", id)
	if r.Current != 0 {
		text += fmt.Sprintf("; current tab is now %d", r.Current)
	} else {
		text += "; this session has no tab left"
	}
	return mcpserver.PageResult(text, r, nil) // ids only
}
