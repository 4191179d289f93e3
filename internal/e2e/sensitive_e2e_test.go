package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// TestE2ESensitiveEverywhere: what a screenshot masks — password, card
// and one-time-code fields, data-gasoline-mask and the policy's
// mask_selectors, in the document and in an open shadow root — reads
// •••• through every text path too: the snapshot (fields keep their role,
// name and ref), get_value, get_text, get_attribute value, query and an
// action's description of its target, analyze dom and data_table; typing
// into one does not echo its value, and the action recorder records what
// the user types into one as masked. Ordinary content stays readable.
func TestE2ESensitiveEverywhere(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "redaction.json")
	require.NoError(t, os.WriteFile(pol, []byte(`{"version":"sensitive-test/1","mask_selectors":[".private-note"]}`), 0o600))
	t.Setenv(redact.EnvPolicy, pol)
	r := startRelay(t, ChainOptions{})
	a := r.client(t, "sensitive-e2e")
	tab := a.newTab(r.url("pages/secrets/fields.html"))
	secrets := []string{"pw-secret-1", "737", "914202", "note-secret-2", "Gold plan", "98,765", "secret-3", "shadow-secret-4", "cell-secret-5", "secret-6"}
	none := func(where, text string) {
		t.Helper()
		for _, s := range secrets {
			require.NotContains(t, text, s, "%s reveals %q", where, s)
		}
	}
	all := func(a answer) string { b, _ := json.Marshal(a.Data); return a.Text + string(b) }

	snap := a.ok("observe", map[string]any{"what": "snapshot", "tab_id": tab})
	none("the snapshot", all(snap))
	for _, want := range []string{"Ada Lovelace", "Public paragraph", "Panel public", "Widget", "••••"} {
		require.Contains(t, snap.Page, want)
	}
	var cvvRef string
	for _, line := range strings.Split(snap.Page, "\n") {
		if strings.Contains(line, `textbox "Security code"`) {
			require.Contains(t, line, "••••", "the field's value is masked: %s", line)
			if m := refRE.FindStringSubmatch(line); m != nil {
				cvvRef = m[1]
			}
		}
	}
	require.NotEmpty(t, cvvRef, "the masked field keeps its ref:\n%s", snap.Page)

	for _, sel := range []string{"#pw", "#cvv", "#otp", "#note", "#plan"} {
		v := a.act("get_value", map[string]any{"selector": sel, "tab_id": tab})
		require.Equal(t, "••••", v.Data["value"], "get_value %s: %s", sel, v.Text)
		none("get_value "+sel, all(v))
	}
	require.Equal(t, "Ada Lovelace", a.act("get_value", map[string]any{"selector": "#name", "tab_id": tab}).Data["value"])
	for _, sel := range []string{"#balance", "#private", ".wallet > p"} {
		v := a.act("get_text", map[string]any{"selector": sel, "tab_id": tab})
		require.Equal(t, "••••", v.Data["value"], "get_text %s: %s", sel, v.Text)
		none("get_text "+sel, all(v)) // its description too
	}
	q := a.act("query", map[string]any{"selector": "p", "tab_id": tab})
	none("query", all(q)) // the elements it lists are described, not quoted
	require.Contains(t, q.Text, `p "public"`)
	hover := a.act("hover", map[string]any{"selector": ".wallet > p", "tab_id": tab})
	none("hover", all(hover))
	body := a.act("get_text", map[string]any{"selector": "body", "tab_id": tab})
	none("get_text body", all(body))
	require.Contains(t, all(body), "Public paragraph")
	attr := a.act("get_attribute", map[string]any{"selector": "#cvv", "name": "value", "tab_id": tab})
	require.Equal(t, "••••", attr.Data["value"])
	require.Equal(t, "cvv", a.act("get_attribute", map[string]any{"selector": "#cvv", "name": "name", "tab_id": tab}).Data["value"])

	dom := a.analyze("dom", map[string]any{"selector": "body", "tab_id": tab})
	none("analyze dom", all(dom))
	require.Contains(t, all(dom), "Public paragraph")
	table := a.analyze("data_table", map[string]any{"selector": "#orders", "tab_id": tab})
	none("analyze data_table", all(table))
	require.Contains(t, all(table), "Widget")

	// What the user types by hand into a policy-masked field, and a
	// payment field's code, are recorded as masked.
	h := r.hand(t, tab)
	h.click("#note")
	h.typeText("typed-secret-7")
	h.click("#public")
	acts := a.until("actions", map[string]any{"tab_id": tab}, 30*time.Second, func(x answer) bool {
		for _, e := range actionsOf(t, x) {
			if e.Selector == "#note" && e.Type == "type" {
				return true
			}
		}
		return false
	})
	var noted act
	for _, e := range actionsOf(t, acts) {
		if e.Selector == "#note" && e.Type == "type" {
			noted = e
		}
	}
	require.Equal(t, "sensitive", noted.Masked, acts.Text)
	require.Empty(t, noted.Value)
	require.NotContains(t, all(acts), "typed-secret-7")

	typed := a.act("type", map[string]any{"ref": cvvRef, "text": "4242", "clear": true, "tab_id": tab})
	require.NotContains(t, all(typed), "4242", "typing into a sensitive field does not echo it: %s", typed.Text)
	require.Equal(t, "4242", js[string](a, `document.getElementById('cvv').value`, map[string]any{"tab_id": tab}), "the typing happened")
}
