package actions

import (
	"context"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

// PageInfo is explore_page's page summary.
type PageInfo struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	Ready    string `json:"ready"` // document.readyState
	Viewport struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"viewport"`
	Scroll struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	} `json:"scroll"`
	Size struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"size"`
	Frames int `json:"frames"`
	Forms  int `json:"forms"`
}

// ExploreArgs are explore_page's arguments.
type ExploreArgs struct {
	Limit int // snapshot lines; 0 = all
}

const infoJS = `function () { return globalThis.__gasolineActions.info() }`

// ExplorePage answers in one call what an agent asks first about a page:
// its url, title, load state, viewport and frames, an interactive-only
// snapshot with refs (a new snapshot generation), and the errors and
// failed requests captured since the tab's last action.
func (e *Engine) ExplorePage(ctx context.Context, tab int, args ExploreArgs) (*Result, error) {
	return e.run(ctx, tab, "explore_page", runOpts{keepCursor: true}, func(ctx context.Context, a *act) error {
		ec, _, err := a.world(ctx, "", "")
		if err != nil {
			return err
		}
		var info PageInfo
		if err := callValue(ctx, a.s, jsCall{fn: infoJS, context: ec}, &info); err != nil {
			return err
		}
		snap, err := a.e.cfg.Snapshots.Take(ctx, a.tab, snapshot.Options{InteractiveOnly: true, Limit: args.Limit})
		if err != nil {
			return err
		}
		a.res.Page, a.res.Snapshot, a.res.HiddenDropped = &info, snap.Text, &snap.Hidden
		a.res.Message = fmt.Sprintf("%q at %s (%s, %dx%d viewport, %d frames, %d forms), %d snapshot lines:\n%s",
			info.Title, info.URL, info.Ready, info.Viewport.Width, info.Viewport.Height, info.Frames, info.Forms, snap.Shown, snap.Text)
		return nil
	})
}
