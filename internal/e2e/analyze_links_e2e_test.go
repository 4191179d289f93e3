package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type linkState struct {
	State  string
	Status int
	Count  int
}

func linkStates(t testing.TB, a answer) map[string]linkState {
	t.Helper()
	var r struct {
		Links []struct {
			URL, State string
			Status     int
			Count      int
		}
	}
	decode(t, a.Data, &r)
	out := map[string]linkState{}
	for _, l := range r.Links {
		out[l.URL] = linkState{l.State, l.Status, l.Count}
	}
	return out
}

// TestE2EAnalyzeLinkHealth: the links page's targets get their known
// outcomes; other origins are left alone by default; with same_origin
// false they are checked, except the origin the approval policy denies to
// link_health — which never receives a request, not even through a
// redirect.
func TestE2EAnalyzeLinkHealth(t *testing.T) {
	x := startAnalyze(t, "analyze-links", ChainOptions{})
	x.page("/analyze/links")
	snap := x.snap(nil)
	site, page := x.site.URL, x.site.URL+"/analyze/links"
	want := map[string]linkState{
		site + "/analyze/ok":         {"ok", 200, 2},
		site + "/analyze/missing":    {"broken", 404, 1},
		site + "/analyze/moved":      {"ok", 200, 1},
		site + "/analyze/private":    {"restricted", 403, 1},
		site + "/analyze/error":      {"broken", 500, 1},
		site + "/analyze/nohead":     {"ok", 200, 1},
		site + "/analyze/to-denied":  {"redirect", 302, 1},
		page + "#present":            {"ok", 0, 1},
		page + "#absent":             {"broken", 0, 1},
		"mailto:someone@example.com": {"skipped", 0, 1},
		x.other.URL + "/analyze/ok":  {"skipped", 0, 1},
		x.denied.URL + "/analyze/ok": {"skipped", 0, 1},
	}
	a := x.analyze("link_health", nil)
	assert.Equal(t, want, linkStates(t, a), a.Text)
	assert.EqualValues(t, 13, a.Data["total_links"])
	assert.Contains(t, a.Text, `broken `+site+`/analyze/missing 404 "Missing page" [ref=`+refOf(t, snap, `link "Missing page"`)+`]`)
	assert.Contains(t, a.Text, "redirect not followed: other origin")

	want[x.other.URL+"/analyze/ok"] = linkState{"ok", 200, 1}
	a = x.analyze("link_health", map[string]any{"same_origin": false})
	assert.Equal(t, want, linkStates(t, a), a.Text)
	assert.Contains(t, a.Text, "the approval policy denies "+x.denied.URL)
	assert.Zero(t, x.deniedHits.Load(), "the denied origin got a request")

	// limit bounds the requests; the rest are reported unchecked.
	a = x.analyze("link_health", map[string]any{"limit": 2})
	states := a.Data["states"].(map[string]any)
	assert.EqualValues(t, 5, states["unchecked"], a.Text) // 7 same-origin targets to request, 2 checked
}
