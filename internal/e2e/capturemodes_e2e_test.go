package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openNoisy opens testdata/pages/noise/noisy.html in a new tab and waits
// (bounded) until capture holds everything the page planted: six console
// messages, three error groups, the 404 and the WebSocket echo.
func openNoisy(t *testing.T, r *relay, c *client) int {
	t.Helper()
	tab := c.newTab(r.url("pages/noise/noisy.html"))
	args := map[string]any{"tab_id": tab}
	c.until("logs", args, 30*time.Second, func(a answer) bool { return len(list(a, "entries")) == 6 })
	c.until("errors", args, 30*time.Second, func(a answer) bool { return a.Data["groups"] == 3.0 })
	// Chromium's favicon request (the site has none) ends at its own time:
	// wait for it too, so that no request of the load lands after a
	// test has cleared the buffer (TestE2EConfigureClear read 1 request
	// after clearing network once in a CI run).
	for _, u := range []string{"missing-cart", "favicon.ico"} {
		c.until("network_waterfall", map[string]any{"tab_id": tab, "url": u, "scope": "all"}, 30*time.Second,
			func(a answer) bool { return count(a, "requests") == 1 })
	}
	c.until("websocket_events", args, 30*time.Second, func(a answer) bool { return strings.Contains(a.Text, `"ping"`) })
	return tab
}

// count is the number of entries of a list answer.
func count(a answer, field string) int { return len(list(a, field)) }

// TestE2EConfigureClear empties the capture buffers of the session's tab
// one at a time and then all: each observe mode reads empty after its
// buffer is cleared while the others keep theirs, a cursor from before the
// clear reads on without reporting the cleared entries as missed, and what
// the page does afterwards is captured as before.
func TestE2EConfigureClear(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "clear-e2e")
	tab := openNoisy(t, r, c)
	args := map[string]any{"tab_id": tab}
	clear := func(buffer string) answer {
		return c.ok("configure", map[string]any{"what": "clear", "buffer": buffer})
	}
	cleared := func(a answer, kind string) float64 {
		tabs := list(a, "tabs")
		require.Len(t, tabs, 1, a.Text)
		n, _ := tabs[0]["cleared"].(map[string]any)[kind].(float64)
		return n
	}

	before := c.observe("logs", args)
	res := clear("network")
	assert.Positive(t, cleared(res, "network"), res.Text)
	assert.Zero(t, count(c.observe("network_waterfall", map[string]any{"tab_id": tab, "scope": "all"}), "requests"))
	assert.Equal(t, 6, count(c.observe("logs", args), "entries"), "the console buffer is kept")

	res = clear("websocket")
	assert.Positive(t, cleared(res, "websocket"), res.Text)
	assert.Zero(t, count(c.observe("websocket_events", args), "events"))

	res = clear("console")
	assert.Equal(t, 6.0, cleared(res, "console"), res.Text)
	assert.Equal(t, 2.0, cleared(res, "error_groups"), "the two console errors' groups")
	assert.Zero(t, count(c.observe("logs", args), "entries"))
	errs := c.observe("errors", args)
	assert.Equal(t, 1.0, errs.Data["groups"], "the uncaught exception stays: %s", errs.Text)

	res = clear("errors")
	assert.Equal(t, 1.0, cleared(res, "exception"), res.Text)
	assert.Zero(t, c.observe("errors", args).Data["groups"])

	// The page goes on; a cursor from before the clear reads on.
	c.ok("interact", map[string]any{"what": "execute_js", "tab_id": tab, "script": "console.log('after clear'); 1"})
	after := c.until("logs", map[string]any{"tab_id": tab, "after_cursor": before.Data["next_cursor"]}, 30*time.Second,
		func(a answer) bool { return count(a, "entries") == 1 })
	assert.True(t, hasText(after, "after clear"))
	assert.Nil(t, after.Data["missed"], "cleared entries are not missed: %s", after.Text)

	res = clear("all")
	assert.Positive(t, cleared(res, "navigation"), res.Text)
	assert.Zero(t, count(c.observe("timeline", args), "entries"))
	assert.Zero(t, count(c.observe("actions", args), "entries"))
	bad := c.refused("invalid_argument", "configure", map[string]any{"what": "clear", "buffer": "cookies"})
	assert.Contains(t, bad.Text, "buffer must be one of")

	// Another session's clear empties its own tabs only.
	c.ok("interact", map[string]any{"what": "execute_js", "tab_id": tab, "script": "console.log('kept'); 1"})
	c.until("logs", args, 30*time.Second, func(a answer) bool { return count(a, "entries") == 1 })
	other := r.client(t, "clear-e2e-other")
	otherTab := other.newTab(r.url("pages/recorder/actions2.html"))
	res = other.ok("configure", map[string]any{"what": "clear"})
	require.Len(t, list(res, "tabs"), 1, res.Text)
	assert.Equal(t, float64(otherTab), list(res, "tabs")[0]["tab_id"])
	assert.Equal(t, 1, count(c.observe("logs", args), "entries"), "another session's clear leaves this tab alone")
}

// TestE2ENoiseRules hides the page's planted noise (a ResizeObserver
// warning, a third-party widget's error) with two rules and reads each
// mode: the real defects stay, each answer says how many entries it hid,
// the rules persist in noise.json (0600), and bad patterns are refused.
func TestE2ENoiseRules(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "noise-e2e")
	tab := openNoisy(t, r, c)
	args := map[string]any{"tab_id": tab}
	rule := func(op, pattern string) answer {
		return c.ok("configure", map[string]any{"what": "noise_rule", "op": op, "pattern": pattern})
	}
	assert.Equal(t, 0, count(c.ok("configure", map[string]any{"what": "noise_rule", "op": "list"}), "rules"))
	rule("add", "ResizeObserver loop")
	listed := rule("add", "(?i)third-party widget")
	assert.Equal(t, 2, count(listed, "rules"), listed.Text)

	errs := c.observe("errors", args)
	assert.Equal(t, 2.0, errs.Data["groups"], errs.Text)
	assert.Equal(t, 1.0, errs.Data["hidden"])
	assert.Contains(t, errs.Text, "Checkout total is NaN")
	assert.Contains(t, errs.Text, "cart is undefined")
	assert.NotContains(t, errs.Text, "Third-party")
	assert.Contains(t, errs.Text, "1 hidden by noise rules")

	logs := c.observe("logs", args)
	assert.Equal(t, 2, count(logs, "entries"), logs.Text)
	assert.Equal(t, 4.0, logs.Data["hidden"])
	assert.Equal(t, 4.0, c.observe("logs", map[string]any{"tab_id": tab, "summary": true}).Data["hidden"])
	bundles := c.observe("error_bundles", args)
	assert.Equal(t, 2, count(bundles, "bundles"))
	assert.Equal(t, 1.0, bundles.Data["hidden"])
	tl := c.observe("timeline", map[string]any{"tab_id": tab, "limit": 1000})
	assert.Equal(t, 4.0, tl.Data["hidden"], "three warnings and the widget's error")
	assert.NotContains(t, tl.Text, "ResizeObserver")

	raw, err := os.ReadFile(filepath.Join(r.Home, "noise.json"))
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"pattern": "ResizeObserver loop"`)
	st, err := os.Stat(filepath.Join(r.Home, "noise.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	rule("remove", "ResizeObserver loop")
	assert.Equal(t, 1.0, c.observe("logs", args).Data["hidden"], "only the widget's error is hidden now")
	for _, bad := range []struct{ op, pattern, code string }{
		{"add", "(", "invalid_argument"},
		{"add", ".*", "invalid_argument"},
		{"add", "(?i)third-party widget", "rule_exists"},
		{"remove", "never added", "rule_not_found"},
		{"add", "", "invalid_argument"},
	} {
		c.refused(bad.code, "configure", map[string]any{"what": "noise_rule", "op": bad.op, "pattern": bad.pattern})
	}
	var f struct {
		Rules []struct{ Pattern string } `json:"rules"`
	}
	raw, err = os.ReadFile(filepath.Join(r.Home, "noise.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &f))
	assert.Len(t, f.Rules, 1)
}

// TestE2ENotes saves, reads, lists and deletes notes over MCP: a secret in
// a value is redacted before it is written; the file is 0600 in a 0700
// directory under the state directory; another session reads the note;
// bad keys, oversize values and missing notes get clear errors.
func TestE2ENotes(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "notes-e2e")
	c.newTab(r.url("pages/recorder/actions2.html")) // store is gated: the local-dev policy allows it on this origin
	value := "1. open /login\n2. use token " + plantedKey
	saved := c.ok("configure", map[string]any{"what": "store", "key": "login-steps", "value": value})
	assert.Equal(t, true, saved.Data["redacted"], saved.Text)
	assert.Equal(t, 1.0, saved.Data["notes"])

	path := filepath.Join(r.Home, "notes", "login-steps.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), plantedKey[:30], "no secret reaches the disk")
	assert.Contains(t, string(raw), "[REDACTED:anthropic_key]")
	for p, mode := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, mode, st.Mode().Perm(), p)
	}

	other := r.client(t, "notes-e2e-reader") // load is read-only: no tab, no approval
	got := other.ok("configure", map[string]any{"what": "load", "key": "login-steps"})
	assert.Equal(t, "1. open /login\n2. use token [REDACTED:anthropic_key]", got.Data["value"])
	assert.Equal(t, "notes-e2e", got.Data["by"])
	assert.Equal(t, []any{"login-steps"}, got.Data["keys"])

	missing := other.refused("note_not_found", "configure", map[string]any{"what": "load", "key": "logout-steps"})
	assert.Contains(t, missing.Text, "notes saved: login-steps")
	for _, bad := range []struct {
		key, value, code string
	}{
		{"../state", "x", "invalid_argument"},
		{"has space", "x", "invalid_argument"},
		{strings.Repeat("k", 65), "x", "invalid_argument"},
		{"big", strings.Repeat("v", 64<<10+1), "note_too_large"},
	} {
		c.refused(bad.code, "configure", map[string]any{"what": "store", "key": bad.key, "value": bad.value})
	}
	deleted := c.ok("configure", map[string]any{"what": "store", "key": "login-steps", "value": ""})
	assert.Equal(t, true, deleted.Data["deleted"])
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err))
	other.refused("note_not_found", "configure", map[string]any{"what": "load", "key": "login-steps"})
}

// TestE2EPRSummary drives the noisy checkout page (the agent types a
// coupon, the user pays by hand during a recording) and generates the
// pull-request summary: the steps in order, who did them, the page, the
// two real errors (the widget's noise hidden and counted) and the failing
// requests, in Markdown with page text in code spans.
func TestE2EPRSummary(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "pr-e2e")
	tab := openNoisy(t, r, c)
	page := r.url("pages/noise/noisy.html")
	c.ok("configure", map[string]any{"what": "noise_rule", "op": "add", "pattern": "(?i)third-party widget"})
	c.ok("interact", map[string]any{"what": "type", "tab_id": tab, "selector": "#coupon", "text": "SAVE10", "clear": true})
	c.ok("configure", map[string]any{"what": "recording_start", "name": "pay"})
	r.hand(t, tab).click("#pay")
	c.until("network_waterfall", map[string]any{"tab_id": tab, "url": "missing-payment"}, 30*time.Second,
		func(a answer) bool { return count(a, "requests") == 1 })
	c.until("actions", map[string]any{"tab_id": tab}, 30*time.Second, func(a answer) bool {
		got := actionsOf(t, a)
		return got[len(got)-1].Type == "click"
	})
	c.ok("configure", map[string]any{"what": "recording_stop"})

	sum := c.ok("generate", map[string]any{"what": "pr_summary", "tab_id": tab})
	md := sum.Data["content"].(string)
	t.Logf("pr_summary:\n%s", md)
	for _, want := range []string{
		"## Session summary\n\nRecorded by Gasoline for pr-e2e on tab ",
		"### What was done\n\n" +
			"1. Opened `" + page + "`\n" +
			"2. Typed `SAVE10` into `textbox \"Coupon\"`\n" +
			"- Recording `pay` started on `" + page + "`\n" +
			"3. Clicked `button \"Pay\"` (by hand)\n" +
			"\n3 actions (1 by hand during recordings), 2 tool calls (0 failed), 0 approval decisions.\n",
		"### Pages visited\n\n- `" + page + "`\n",
		"### Errors seen\n\n" +
			"- **1×** `Checkout total is NaN` at `" + page + "`\n" +
			"- **1×** `Uncaught Error: cart is undefined` at `" + page + "`\n" +
			"\n_1 more hidden by noise rules._\n",
	} {
		assert.Contains(t, md, want)
	}
	// The failing requests, in the order they ended (the page's fetch and
	// Chromium's favicon request, which the site lacks, race).
	_, failing, ok := strings.Cut(md, "### Failing requests\n\n")
	require.True(t, ok, md)
	lines := strings.Split(strings.TrimSpace(failing), "\n")
	slices.Sort(lines)
	assert.Equal(t, []string{
		"- `GET " + r.url("api/missing-cart") + "` — `Not Found`",
		"- `GET " + r.url("favicon.ico") + "` — `Not Found`",
		"- `POST " + r.url("api/missing-payment") + "` — `Not Found`",
	}, lines)
	assert.NotContains(t, md, "Third-party")
	stats := sum.Data["summary"].(map[string]any)
	assert.Equal(t, 2.0, stats["errors"])
	assert.Equal(t, 1.0, stats["hidden"])
}
