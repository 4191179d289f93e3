package interact

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/observe"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// SnapshotResult is observe snapshot's structured answer: the metadata; the
// tree itself is the text content.
type SnapshotResult struct {
	TabID      int    `json:"tab_id"`
	URL        string `json:"url,omitempty"`
	Generation int    `json:"generation"`
	Nodes      int    `json:"nodes"` // lines of the whole snapshot
	Shown      int    `json:"shown"` // lines shown (depth and limit cut)
	Refs       int    `json:"refs"`
	// HiddenDropped counts text left out because no person sees it.
	HiddenDropped int `json:"hidden_dropped"`
	// HiddenReasons is HiddenDropped by reason (internal/visible).
	HiddenReasons map[string]int `json:"hidden_reasons,omitempty"`
	File          string         `json:"file,omitempty"` // to_file: where the text went
	// Matches counts the lines a find matched; Diff what a diff found.
	Matches *int                `json:"matches,omitempty"`
	Diff    *snapshot.DiffStats `json:"diff,omitempty"`
	// NotRendered: the page had drawn nothing yet (it renders from script)
	// when the bounded wait for its first content ended.
	NotRendered bool `json:"not_rendered,omitempty"`
}

// snapshot takes the accessibility snapshot of the call's tab, holding the
// tab's action lock so that it never interleaves with an action.
func (x *Interact) snapshot(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := observe.Budget(ctx, c)
	defer cancel()
	s, err := x.tabs.Session(ctx, c.Session.ID(), c.Int("tab_id", 0))
	if err != nil {
		return nil, err
	}
	tab := s.TabID()
	o := snapshot.Options{InteractiveOnly: c.Bool("interactive_only"), Depth: c.Int("depth", 0), Limit: c.Int("limit", 0),
		Root: c.Str("ref"), Frame: c.Str("frame"), Find: c.Str("find"), Diff: c.Bool("diff"), Session: c.Session.ID()}
	if o.Root == "" {
		o.Root = c.Str("selector")
	}
	unlock, err := x.eng.Lock(ctx, tab)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if ds := x.capture.OpenDialogs(tab); len(ds) > 0 {
		d := ds[len(ds)-1]
		return nil, &tools.Error{Code: actions.CodeDialogOpen,
			NextAction: &tools.Next{Tool: "interact", Arguments: map[string]any{"what": "handle_dialog", "accept": true, "tab_id": tab}},
			Message:    fmt.Sprintf("a %s dialog (%q) blocks tab %d; answer it with interact handle_dialog first", d.Type, d.Message, tab)}
	}
	r, err := x.snaps.Take(ctx, tab, o)
	if errors.Is(err, snapshot.ErrNavigated) {
		r, err = x.snaps.Take(ctx, tab, o) // the page was still settling a load: once more
	}
	if err != nil {
		return nil, snapshotErr(err)
	}
	res := SnapshotResult{TabID: tab, URL: x.tabs.URL(tab), Generation: r.Generation, Nodes: r.Nodes, Shown: r.Shown, Refs: r.Refs, HiddenDropped: r.Hidden, HiddenReasons: r.HiddenWhy, Diff: r.Diff}
	head := fmt.Sprintf("tab %d snapshot %d (%d refs)", tab, r.Generation, r.Refs)
	if res.URL != "" {
		head += " of " + res.URL
	}
	if o.Find != "" {
		res.Matches = &r.Matches
	}
	if r.Note != "" {
		head += " · " + r.Note
	}
	if r.NotRendered {
		res.NotRendered = true
		head += fmt.Sprintf(" · the page has not rendered content yet (nothing drawn %d ms after it was asked): take the snapshot again, or wait_for what you expect", snapshot.RenderWait.Milliseconds())
	}
	if c.Bool("to_file") {
		text, err := x.egress.Text(c.Session.ID(), r.Text)
		if err != nil {
			return nil, mcpserver.Blocked("the snapshot file", err)
		}
		if res.File, err = x.saveSnapshot(tab, text); err != nil {
			return nil, err
		}
		return mcpserver.PageResult(fmt.Sprintf("%s: %d lines written to %s", head, r.Shown, res.File), res, new(untrusted.Page).Add(res.URL))
	}
	// The tree is in the text only: repeating it in the structured answer
	// would double what the agent pays for in tokens.
	return mcpserver.PageResult(head+"\n"+r.Text, res, new(untrusted.Page).Add(res.URL, r.Text))
}

func (x *Interact) saveSnapshot(tab int, text string) (string, error) {
	dir := filepath.Join(x.dir, "captures")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("snapshot: creating %s: %w", dir, err)
	}
	p := filepath.Join(dir, fmt.Sprintf("snapshot-tab%d-%d.txt", tab, time.Now().UnixMilli()))
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		return "", fmt.Errorf("snapshot: writing %s: %w", p, err)
	}
	return p, nil
}

// snapshotErr turns a snapshot failure into a structured tool error.
func snapshotErr(err error) error {
	var stale *snapshot.StaleRefError
	if errors.As(err, &stale) {
		return &tools.Error{Code: actions.CodeStaleRef, Message: stale.Error(),
			NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "snapshot"}}}
	}
	if ae := (*snapshot.ArgError)(nil); errors.As(err, &ae) {
		return tools.Errorf(tools.CodeInvalidArgument, "%s", ae.Msg)
	}
	if errors.Is(err, snapshot.ErrNavigated) {
		return &tools.Error{Code: tools.CodeInternal, Retryable: true, RetryAfterMS: 200,
			Message: "the tab kept navigating while the snapshot was taken; retry when the page has loaded (interact wait_for_stable)"}
	}
	return tabs.ToolError(err)
}

// ResolveRef maps a snapshot ref to its node for observe screenshot, in
// the tab's action queue.
func (x *Interact) ResolveRef(ctx context.Context, tab int, ref string) (cdproto.BackendNodeID, error) {
	unlock, err := x.eng.Lock(ctx, tab)
	if err != nil {
		return 0, err
	}
	defer unlock()
	t, err := x.snaps.Resolve(ctx, tab, ref)
	if err != nil {
		return 0, snapshotErr(err)
	}
	if t.SessionID != "" {
		return 0, tools.Errorf(tools.CodeInvalidArgument, "ref %s (%s) is inside an out-of-process iframe; screenshot the iframe's ref instead", ref, t.Desc)
	}
	return t.BackendNodeID, nil
}
