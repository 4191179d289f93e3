//go:build linux

package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Text painted over by a box whose position comes from each place a
// position can come from — a rule in @media, a custom property, the style
// attribute, the page's script, a rule inserted at run time, an adopted
// style sheet, a shadow tree's style sheet, the browser's own style sheet
// (an open dialog) — on a page with no transforms, filters or positioned
// pseudo-elements, where the visibility test styles only the elements
// that may be positioned (internal/visible covers), and where selectors
// cannot tell (a :host rule, a nested rule), where it styles every
// element: no covered passage reaches the agent through the snapshot or
// get_text, every visible one does. Each source left out of
// visible.positioned lets its passage through.
func TestE2EDrawnCoversFromEverySource(t *testing.T) {
	x := startInteract(t, "drawn-covers")
	for _, page := range []string{"covers.html", "covers-fallback.html"} {
		hide, see, _, n := drawnCorpus(t, page)
		assert.Equal(t, len(hide), n, "%s: one technique per covered passage", page)
		tab := x.newTab(x.PageURL("pages/hidden/" + page))
		snap := x.observe("snapshot", map[string]any{"tab_id": tab})
		text := x.call("interact", map[string]any{"what": "get_text", "selector": "body", "tab_id": tab})
		for name, a := range map[string]answer{"observe snapshot": snap, "interact get_text": text} {
			all := everything(a)
			leaked, _ := tally(all, hide)
			assert.Empty(t, leaked, "%s %s: covered passages reached the agent", page, name)
			_, missing := tally(all, see)
			assert.Empty(t, missing, "%s %s: visible passages lost", page, name)
		}
		x.act("close_tab", map[string]any{"tab_id": tab})
	}
}
