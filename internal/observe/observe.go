// Package observe implements the observe modes that read a tab: what the
// capture buffers hold (errors, logs, network_waterfall, websocket_events,
// timeline, error_bundles) and what typed CDP calls read from the page
// (page, tabs, network_bodies, screenshot, storage, vitals). Every mode
// takes tab_id (default: the session's current tab) and answers compact
// text plus the same data as structuredContent; list modes take limit,
// after_cursor and summary.
//
// It also holds what capture needs from the relay: Enable (the CDP domains
// and scripts turned on in an attached tab) and the Feed that routes
// cdp.event messages into the capture store.
package observe

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Config configures an Observer. Tabs and Store are required.
type Config struct {
	Tabs  *tabs.Manager
	Store *capture.Store
	// Browsers lists the connected browsers and each one's tabs, for
	// observe tabs.
	Browsers Browsers
	// Dir is the state directory; large outputs (to_file) go under
	// Dir/captures.
	Dir string
	// ResolveRef maps a snapshot ref of a tab to its DOM node; nil until
	// the snapshot engine provides it (screenshot then refuses ref).
	ResolveRef func(ctx context.Context, tab int, ref string) (cdproto.BackendNodeID, error)
	// Noise, when set, hides the console messages and errors the user
	// marked as noise (configure noise_rule) from errors, logs,
	// error_bundles and timeline; each answer counts what it hid.
	Noise Filter
	// Conditions, when set, says what interact emulate put in force on a
	// tab's target (in words, and as data), for observe page; "" when
	// nothing (devtools.Conditions).
	Conditions func(*target.Target) (string, any)
	Logger     *slog.Logger
}

// Browsers is what observe tabs asks of the connected browsers (a
// *browsers.Hub).
type Browsers interface {
	List() []browsers.Info
	CallIn(ctx context.Context, slot browsers.Slot, method string, params any) (json.RawMessage, error)
}

// Filter tells noise from the rest: a console message or error, by its
// text and the URL of its source.
type Filter interface {
	Hide(text, url string) bool
}

// Observer serves the observe modes.
type Observer struct {
	cfg Config
	log *slog.Logger
}

// New returns an Observer.
func New(cfg Config) *Observer {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Observer{cfg: cfg, log: cfg.Logger}
}

// Register makes the observe modes work on srv. The modes that read the
// capture buffers answer from the daemon's memory at once: quick
// (mcpserver.HandleQuick, no session command unless asked for background).
func (o *Observer) Register(srv *mcpserver.Server) {
	reads := map[string]mcpserver.Handler{
		"actions":           o.actions,
		"error_bundles":     o.errorBundles,
		"errors":            o.errors,
		"logs":              o.logs,
		"network_waterfall": o.networkWaterfall,
		"timeline":          o.timeline,
		"websocket_events":  o.websocketEvents,
	}
	for what, h := range reads {
		srv.HandleQuick("observe", what, h)
	}
	browser := map[string]mcpserver.Handler{
		"network_bodies": o.networkBodies,
		"page":           o.page,
		"screenshot":     o.screenshot,
		"storage":        o.storage,
		"tabs":           o.tabs,
		"vitals":         o.vitals,
	}
	for what, h := range browser {
		srv.Handle("observe", what, h)
	}
}

// noise reports an entry the user's noise rules hide.
func (o *Observer) noise(text, url string) bool {
	return o.cfg.Noise != nil && o.cfg.Noise.Hide(text, url)
}

// visible drops the error groups the noise rules hide and counts them.
func (o *Observer) visible(groups []capture.ErrorGroup) ([]capture.ErrorGroup, int) {
	n := len(groups)
	groups = slices.DeleteFunc(groups, func(g capture.ErrorGroup) bool { return o.noise(g.Message, g.URL) })
	return groups, n - len(groups)
}

// hiddenNote is the text an answer adds when noise rules hid entries.
func hiddenNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d hidden by noise rules; configure noise_rule op list shows them)", n)
}

// Budget bounds a call's browser work by its timeout_ms.
//
// Deprecated: use the call's own Budget (mcpserver.Call.Budget).
func Budget(ctx context.Context, c *mcpserver.Call) (context.Context, context.CancelFunc) {
	return c.Budget(ctx)
}

// tab resolves the call's tab for buffer reads (no browser round trip).
func (o *Observer) tab(c *mcpserver.Call) (int, error) {
	return o.cfg.Tabs.Tab(c.Session.ID(), c.Args.TabID)
}

// session resolves the call's tab for CDP calls, attaching if needed.
func (o *Observer) session(ctx context.Context, c *mcpserver.Call) (*cdp.Session, error) {
	return o.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
}

// children are the tab's live child sessions (workers, out-of-process
// iframes), newest first, as its target tracks them.
func (o *Observer) children(tab int) []target.Child { return o.cfg.Tabs.Target(tab).Children() }

func ptr[T any](v T) *T { return &v }

// paging is the limit, after_cursor and summary of a list mode.
type paging struct {
	limit   int
	after   uint64
	summary bool
}

// listed is a list mode's tab and paging.
func (o *Observer) listed(c *mcpserver.Call) (int, paging, error) {
	tab, err := o.tab(c)
	if err != nil {
		return 0, paging{}, err
	}
	pg, err := pagingOf(c)
	return tab, pg, err
}

func pagingOf(c *mcpserver.Call) (paging, error) {
	p := paging{limit: min(max(cmp.Or(c.Args.Limit, capture.DefaultLimit), 1), capture.MaxLimit), summary: c.Args.Summary}
	if s := c.Args.AfterCursor; s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return p, &tools.Error{Code: tools.CodeInvalidArgument, NextAction: tools.Describe("observe", c.Mode.Name),
				Message: "after_cursor must be the next_cursor of a previous answer of this mode"}
		}
		p.after = n
	}
	return p, nil
}

// cursor formats a next cursor.
func cursor(n uint64) string { return strconv.FormatUint(n, 10) }
