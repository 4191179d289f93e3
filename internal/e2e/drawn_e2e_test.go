//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hidden by what is drawn (issue 29): the corpus pages under
// testdata/pages/hidden/ (article, product) hide instructions by more
// than sixty techniques, each named in a data-technique attribute; none
// may reach the agent by any read path — snapshot, find, diff, get_text,
// analyze dom and page_summary — and every visible passage must. Text in
// attributes and tags (zkattrNN) may reach analyze dom and page_summary
// only labelled "not visible", and a name taken from a hidden element
// only marked [name not visible].

var drawnPages = []string{"article.html", "product.html"}

// svgText are visible passages drawn as SVG text, which only get_text and
// analyze dom read.
var svgText = []string{"zksee23"}

// drawnCorpus reads a corpus page's tokens and techniques from the file.
func drawnCorpus(t *testing.T, page string) (hide, see, attrs []string, techniques int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "testdata", "pages", "hidden", page))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, tok := range regexp.MustCompile(`zk(hide|see|attr)\d+`).FindAllString(string(raw), -1) {
		if seen[tok] {
			continue
		}
		seen[tok] = true
		switch {
		case strings.HasPrefix(tok, "zkhide"):
			hide = append(hide, tok)
		case strings.HasPrefix(tok, "zksee"):
			see = append(see, tok)
		default:
			attrs = append(attrs, tok)
		}
	}
	return hide, see, attrs, strings.Count(string(raw), "data-technique=")
}

// unlabelled returns the tokens of want that appear in an answer's text
// on a line that does not carry the not-visible label.
func unlabelled(text string, want []string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, w := range want {
			if strings.Contains(line, w) && !strings.Contains(line, "not visible") {
				out = append(out, w)
			}
		}
	}
	return out
}

func TestE2EDrawnHiddenText(t *testing.T) {
	x := startInteract(t, "drawn-hidden")
	var techniques, passages, reached, visible, lost int
	for _, page := range drawnPages {
		hide, see, attrs, n := drawnCorpus(t, page)
		techniques += n
		passages += len(hide)
		visible += len(see)
		tab := x.newTab(x.PageURL("pages/hidden/" + page))
		args := map[string]any{"tab_id": tab}
		with := func(k string, v any) map[string]any { return map[string]any{"tab_id": tab, k: v} }

		snap := x.observe("snapshot", args)
		find := x.observe("snapshot", with("find", "zk"))
		text := x.call("interact", map[string]any{"what": "get_text", "selector": "body", "tab_id": tab})
		dom := x.analyze("dom", map[string]any{"tab_id": tab, "depth": 40, "limit": 1000})
		summary := x.analyze("page_summary", args)
		// diff: the page emptied, snapshotted, then put back: every line
		// of the page is new in the diff.
		js[int](x.client, `(() => { window.__corpus = document.body.innerHTML; document.body.innerHTML = '<p>empty</p>'; return 1; })()`, args)
		x.observe("snapshot", args)
		js[int](x.client, `(() => { document.body.innerHTML = window.__corpus; return 1; })()`, args)
		diff := x.observe("snapshot", with("diff", true))

		for _, a := range []struct {
			name string
			a    answer
			must bool // every visible passage must be in it
		}{
			{"observe snapshot", snap, true}, {"snapshot find", find, true}, {"snapshot diff", diff, true},
			{"interact get_text", text, true}, {"analyze dom", dom, true}, {"analyze page_summary", summary, false},
		} {
			all := everything(a.a)
			leaked, _ := tally(all, hide)
			reached += len(leaked)
			assert.Empty(t, leaked, "%s %s: hidden passages reached the agent", page, a.name)
			if a.must {
				want := see
				if a.name != "interact get_text" && a.name != "analyze dom" {
					want = without(see, svgText...) // the snapshot shows an <svg> as an image, by its name
				}
				_, missing := tally(all, want)
				lost += len(missing)
				assert.Empty(t, missing, "%s %s: visible passages lost", page, a.name)
			}
			bare := unlabelled(a.a.Text, attrs)
			assert.Empty(t, bare, "%s %s: attribute text passed on without the not-visible label", page, a.name)
			t.Logf("%s %-22s hidden reached %d/%d %v; hidden_dropped %v %v", page, a.name, len(leaked), len(hide), leaked,
				a.a.Data["hidden_dropped"], a.a.Data["hidden_reasons"])
		}
		assert.NotEmpty(t, snap.Data["hidden_reasons"], "%s: the snapshot says why it dropped text", page)
		if page == "product.html" {
			assert.Regexp(t, `button "zkattr07[^"]*" \[name not visible\]`, snap.Page, "a name from a hidden element is marked")
		}
		if page == "article.html" {
			assert.Contains(t, summary.Text, "description (not visible", "the meta description is labelled")
			assert.Contains(t, dom.Text, `[not visible: data-ai-note="zkattr03`, "a data attribute is labelled")
		}
		x.act("close_tab", args)
	}
	t.Logf("drawn corpus: %d techniques, %d hidden passages × 6 read paths: %d reached the agent; %d visible passages: %d lost",
		techniques, passages, reached, visible, lost)
	assert.GreaterOrEqual(t, techniques, 60, "hiding techniques in the corpus")
}

// TestE2EDrawnAnimatedDialogs: dialogs that fade and scale in are read on
// their settled state — the Bootstrap modal of Jupyter's Help ▸ About
// right after it opens, and a 30 s fade-in read while it runs — through
// the snapshot and get_text; a dialog that stays closed stays out.
func TestE2EDrawnAnimatedDialogs(t *testing.T) {
	x := startInteract(t, "drawn-dialogs")
	tab := x.newTab(x.PageURL("pages/hidden/dialogs.html"))
	args := map[string]any{"tab_id": tab}

	// A dialog that fades and scales in over 30 s, read while it runs.
	x.act("click", map[string]any{"selector": "#open-slow", "tab_id": tab})
	slowSnap := x.observe("snapshot", args)
	slow := x.act("get_text", map[string]any{"selector": ".slow", "tab_id": tab})
	running := js[int](x.client, `document.getAnimations().filter((a) => a.playState === 'running').length`, args)
	require.Positive(t, running, "the dialog was still animating after the reads: they were made mid-animation")
	for _, tok := range []string{"zksee71", "zksee72", "zksee73"} {
		assert.Contains(t, slowSnap.Page, tok, "the snapshot keeps the animating dialog's text")
	}
	assert.Contains(t, slow.Text, "zksee72 Shift-Enter runs the cell")
	js[int](x.client, `(() => { document.querySelector('.slow').remove(); return 1; })()`, args)

	// Jupyter's Help ▸ About: Bootstrap's .modal.fade, read right after it opens.
	x.act("click", map[string]any{"selector": "#help", "tab_id": tab})
	snap := x.observe("snapshot", args)
	body := x.act("get_text", map[string]any{"selector": ".modal-body", "tab_id": tab})
	for _, tok := range []string{"zksee64", "zksee65", "zksee66", "zksee67", "zksee68", "zksee69"} {
		assert.Contains(t, snap.Page, tok, "the snapshot keeps the About dialog's text")
	}
	assert.Contains(t, body.Text, "zksee67 The version of the notebook server is: 6.4.12")
	assert.NotContains(t, everything(snap), "zkhide70", "a closed dialog stays out")
	assert.Regexp(t, `dialog "zksee64 About Jupyter Notebook"[^\n]*\n(.*\n)*.*heading "zksee64 About Jupyter Notebook"`, snap.Page)
	t.Logf("dialogs read mid-animation (%d running): hidden_dropped %v and %v", running, slowSnap.Data["hidden_dropped"], snap.Data["hidden_dropped"])
}
