package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2EAnalyzeRefusals: every analyze mode (and generate sarif) refuses
// a session with no tab, a tab another session owns, and a page a
// dialog blocks, with the structured error that says what to do.
func TestE2EAnalyzeRefusals(t *testing.T) {
	x := startAnalyze(t, "analyze-refusals", ChainOptions{})
	modes := map[string]map[string]any{
		"accessibility": nil, "data_table": nil, "dom": nil, "error_clusters": nil, "forms": nil,
		"link_health": nil, "page_issues": nil, "page_summary": nil, "performance": nil,
		"security_audit": nil, "visual_diff": {"baseline": "b"},
	}
	for what, args := range modes {
		a := x.analyzeFails("no_tab", what, args)
		require.NotNil(t, a.Data["next_action"], "%s: %s", what, a.Text)
	}
	a := x.call("generate", map[string]any{"what": "sarif"})
	require.True(t, a.IsError)
	assert.Equal(t, "no_tab", a.code())

	tab := x.page("/pages/analyze/visual.html")
	other := x.relay.client(t, "another-agent")
	for what, args := range modes {
		m := map[string]any{"what": what, "tab_id": tab}
		for k, v := range args {
			m[k] = v
		}
		a := other.call("analyze", m)
		require.True(t, a.IsError, what)
		assert.Equal(t, "tab_not_owned", a.code(), "%s: %s", what, a.Text)
	}

	x.act("execute_js", map[string]any{"script": "setTimeout(() => alert('stop'), 0); 1"})
	x.until("page", nil, 15e9, func(a answer) bool { return len(list(a, "open_dialogs")) == 1 })
	for what, args := range modes {
		if what == "error_clusters" {
			continue // reads the capture buffers only
		}
		a := x.analyzeFails("dialog_open", what, args)
		assert.Equal(t, "handle_dialog", a.Data["next_action"].(map[string]any)["arguments"].(map[string]any)["what"], what)
	}
	x.analyze("error_clusters", nil)
	x.act("handle_dialog", map[string]any{"accept": true})
	x.analyze("dom", map[string]any{"selector": "#box"})
}
