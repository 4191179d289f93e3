package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
		for _, secret := range []string{plantedPassword, plantedCard, strings.ReplaceAll(plantedCard, " ", ""), "1111 1111", plantedKey[:30], "forged-typing", "Forged target"} {
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

// replayScript writes a reproduction to a file, replays it with
// playwright-core in Debian Chromium (tools/replay) and returns the page's
// #state afterwards.
func replayScript(t *testing.T, node, replay, script string) map[string]any {
	t.Helper()
	file := filepath.Join(t.TempDir(), "reproduction.js")
	require.NoError(t, os.WriteFile(file, []byte(script), 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, replay, file, "--check", "document.querySelector('#state').textContent")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "replay failed:\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	var report struct {
		OK    bool   `json:"ok"`
		Check string `json:"check"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &report), stdout.String())
	require.True(t, report.OK)
	var state map[string]any
	require.NoError(t, json.Unmarshal([]byte(report.Check), &state), report.Check)
	return state
}

// TestE2ERecordingReplay records what a person does by hand (trusted
// input from outside any agent call), with an agent call in the middle,
// between configure recording_start and recording_stop; generate
// reproduction after the recording's cursor holds exactly those steps in
// order — the agent's once — and replaying it with playwright-core in
// Debian Chromium leaves the page in the state the person left it in. A
// second recording covers navigations from the address bar and the
// reload button.
func TestE2ERecordingReplay(t *testing.T) {
	node, replay := replayTool(t)
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "recording-e2e")
	page := r.url("pages/export/todo.html")
	tab := c.newTab(page)
	h := r.hand(t, tab)
	state := func() map[string]any {
		var s string
		h.eval("document.querySelector('#state').textContent", &s)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		return m
	}

	started := c.ok("configure", map[string]any{"what": "recording_start", "name": "first"})
	assert.Equal(t, page, started.Data["start_url"])
	c.refused("recording_active", "configure", map[string]any{"what": "recording_start"})
	h.click("#item")
	h.typeText("buy milk")
	h.click("#add")
	h.click("#item")
	h.typeText("call Ada")
	h.press("Enter")
	h.click("#done-1")
	h.eval("document.querySelector('#priority').focus()", nil)
	h.press("h") // the select's type-ahead chooses High
	c.ok("interact", map[string]any{"what": "type", "tab_id": tab, "selector": "#note", "text": "agent note", "clear": true})
	recorded := state()
	require.Len(t, recorded["items"], 2)
	require.Equal(t, "high", recorded["priority"])
	// The recorder reports each change as it happens; wait until the last
	// one (the select) is in before stopping.
	c.until("actions", map[string]any{"tab_id": tab}, 30*time.Second, func(a answer) bool {
		got := actionsOf(t, a)
		return len(got) > 0 && got[len(got)-1].Type == "type" && got[len(got)-1].Source == "agent"
	})
	stopped := c.ok("configure", map[string]any{"what": "recording_stop"})
	assert.EqualValues(t, 6, stopped.Data["user_actions"], stopped.Text)
	after := stopped.Data["after_cursor"].(string)
	assert.Equal(t, started.Data["after_cursor"], after)
	c.refused("not_recording", "configure", map[string]any{"what": "recording_stop"})

	repro := c.ok("generate", map[string]any{"what": "reproduction", "tab_id": tab, "after_cursor": after})
	script := repro.Data["content"].(string)
	t.Logf("reproduction of the first recording:\n%s", script)
	assert.Contains(t, script, strings.Join([]string{
		`  await page.goto(` + jsString(page) + `); // recording "first" starts here`,
		`  await page.locator("#item").fill("buy milk");`,
		`  await page.locator("#add").click();`,
		`  await page.locator("#item").fill("call Ada");`,
		`  await page.locator("#item").press("Enter");`,
		`  await page.locator("#done-1").setChecked(true);`,
		`  await page.locator("#priority").selectOption("high");`,
		`  await page.locator("#note").fill("agent note");`,
		"}",
	}, "\n"))
	assert.Equal(t, recorded, replayScript(t, node, replay, script), "the replay ends where the person left the page")
	test := c.ok("generate", map[string]any{"what": "test", "tab_id": tab, "after_cursor": after}).Data["content"].(string)
	assert.Contains(t, test, `await expect(page.locator("#priority")).toHaveValue("high");`)

	// Second recording: the address bar and the reload button.
	second := c.ok("configure", map[string]any{"what": "recording_start", "name": "second"})
	other := page + "?second=1"
	h.navigate(other)
	h.click("#item")
	h.typeText("after nav")
	h.click("#add")
	h.reload()
	h.click("#item")
	h.typeText("final")
	h.press("Enter")
	h.click("#done-1")
	final := state()
	c.until("actions", map[string]any{"tab_id": tab}, 30*time.Second, func(a answer) bool {
		got := actionsOf(t, a)
		return len(got) > 0 && got[len(got)-1].Type == "check"
	})
	stopped = c.ok("configure", map[string]any{"what": "recording_stop"})
	assert.EqualValues(t, 7, stopped.Data["user_actions"], stopped.Text)
	script = c.ok("generate", map[string]any{"what": "reproduction", "tab_id": tab, "after_cursor": second.Data["after_cursor"]}).Data["content"].(string)
	t.Logf("reproduction of the second recording:\n%s", script)
	assert.Contains(t, script, strings.Join([]string{
		`  await page.goto(` + jsString(page) + `); // recording "second" starts here`,
		`  await page.goto(` + jsString(other) + `);`,
		`  await page.locator("#item").fill("after nav");`,
		`  await page.locator("#add").click();`,
		`  await page.reload();`,
		`  await page.locator("#item").fill("final");`,
		`  await page.locator("#item").press("Enter");`,
		`  await page.locator("#done-1").setChecked(true);`,
		"}",
	}, "\n"))
	assert.Equal(t, final, replayScript(t, node, replay, script))
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
