package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// act is an observe actions entry as the test compares it.
type act struct {
	Kind, Source, Type, Selector, Target, Value, Masked, URL string
	Checked                                                  *bool
}

// actionsOf reads an observe actions answer.
func actionsOf(t testing.TB, a answer) []act {
	t.Helper()
	var out []act
	for _, e := range list(a, "entries") {
		switch e["kind"] {
		case "navigation":
			n := e["navigation"].(map[string]any)
			out = append(out, act{Kind: "navigation", Type: n["event"].(string), URL: n["url"].(string)})
		case "action":
			raw, _ := json.Marshal(e["action"])
			var x struct {
				Source, Type, Selector, Target, Value, Masked string
				Checked                                       *bool
			}
			require.NoError(t, json.Unmarshal(raw, &x))
			out = append(out, act{Kind: "action", Source: x.Source, Type: x.Type, Selector: x.Selector, Target: x.Target,
				Value: x.Value, Masked: x.Masked, Checked: x.Checked})
		}
	}
	return out
}

var (
	plantedPassword = "hunter2-Planted-Pw"
	plantedCard     = "4111 1111 1111 1111"
)

// TestE2EObserveActions drives a sign-in page by hand (trusted CDP input
// from outside any agent call) and by the agent, and reads observe
// actions: every click, text, checkbox and navigation in order, each with
// its selector, description and who did it; the password and the card
// number are reported as masked and appear in no answer; a secret typed
// into a note is redacted; the page's forged events (a synthetic click, a
// script's checkbox click and execCommand typing) are not recorded, and
// the page cannot see the recorder's binding.
func TestE2EObserveActions(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "actions-e2e")
	page := r.url("pages/recorder/actions.html")
	tab := c.newTab(page)
	h := r.hand(t, tab)

	h.click("#user")
	h.typeText("ada")
	h.click("#pw")
	h.typeText(plantedPassword)
	h.click("#card")
	h.typeText(plantedCard)
	h.click("#note")
	h.typeText("token " + plantedKey)
	h.click("#remember") // the page's script checked it: this unchecks it
	h.click("#go")
	c.ok("interact", map[string]any{"what": "click", "tab_id": tab, "selector": "#next"})

	next := r.url("pages/recorder/actions2.html")
	a := c.until("actions", map[string]any{"tab_id": tab}, 30*time.Second, func(a answer) bool {
		got := actionsOf(t, a)
		return len(got) > 0 && got[len(got)-1].URL == next
	})
	f := false
	want := []act{
		{Kind: "navigation", Type: "navigated", URL: page},
		{Kind: "action", Source: "user", Type: "type", Selector: "#user", Target: `textbox "User"`, Value: "ada"},
		{Kind: "action", Source: "user", Type: "type", Selector: "#pw", Target: `textbox "Password"`, Masked: "password"},
		{Kind: "action", Source: "user", Type: "type", Selector: "#card", Target: `textbox "Card number"`, Masked: "card"},
		{Kind: "action", Source: "user", Type: "type", Selector: "#note", Target: `textbox "Note"`, Value: "token [REDACTED:anthropic_key]"},
		{Kind: "action", Source: "user", Type: "check", Selector: "#remember", Target: `checkbox "Remember me"`, Checked: &f},
		{Kind: "action", Source: "user", Type: "click", Selector: "#go", Target: `button "Go"`},
		{Kind: "action", Source: "agent", Type: "click", Selector: "#next", Target: `link "Next page"`},
		{Kind: "navigation", Type: "navigated", URL: next},
	}
	assert.Equal(t, want, actionsOf(t, a), a.Text)

	// Nothing the page forged, and no secret, in any answer.
	tl := c.observe("timeline", map[string]any{"tab_id": tab, "limit": 1000})
	logs := c.observe("logs", map[string]any{"tab_id": tab})
	repro := c.ok("generate", map[string]any{"what": "reproduction", "tab_id": tab})
	for name, ans := range map[string]answer{"actions": a, "timeline": tl, "logs": logs, "reproduction": repro} {
		raw, _ := json.Marshal(ans.Data)
		for _, secret := range []string{plantedPassword, "4111", plantedKey[:30], "forged-typing", "Forged target"} {
			assert.NotContains(t, ans.Text, secret, "%s text", name)
			assert.NotContains(t, string(raw), secret, "%s structuredContent", name)
		}
	}
	assert.True(t, hasText(logs, "recorder bindings visible to the page: 0"), logs.Text)
	assert.Contains(t, tl.Text, `user click button "Go" (#go)`, "the timeline merges actions")
	assert.Contains(t, a.Text, `user type textbox "Password" (#pw) = [masked password]`)

	// A cursor reads on from where the last answer ended.
	h.click(`a[href="actions.html"]`)
	back := c.until("actions", map[string]any{"tab_id": tab, "after_cursor": a.Data["next_cursor"]}, 30*time.Second, func(a answer) bool {
		got := actionsOf(t, a)
		return len(got) == 2
	})
	assert.Equal(t, []act{
		{Kind: "action", Source: "user", Type: "click", Selector: `role=link[name="Back to sign in"s]`, Target: `link "Back to sign in"`},
		{Kind: "navigation", Type: "navigated", URL: page},
	}, actionsOf(t, back), back.Text)
	fmt.Fprint(testWriter{t}, a.Text)
}

// testWriter logs what is written to it.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
