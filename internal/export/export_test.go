package export

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func TestStableSelector(t *testing.T) {
	for _, tc := range []struct{ sel, target, want string }{
		{"#go", `button "Go"`, "#go"},
		{"", `button "Save"`, `role=button[name="Save"s]`},
		{"", `textbox "Email"`, `role=textbox[name="Email"s]`},
		{"", `link "Say \"hi\""`, `role=link[name="Say \"hi\""s]`},
		{"", `button "A very long label…"`, `role=button[name="A very long label"i]`},
		{"", `checkbox`, `role=checkbox`},
		{"", `div "wrapper"`, ""},
		{"", ``, ""},
	} {
		assert.Equal(t, tc.want, StableSelector(tc.sel, tc.target), "%q %q", tc.sel, tc.target)
	}
}

func TestActionOf(t *testing.T) {
	at := time.Unix(100, 0)
	a := ActionOf("click", parsed(t, `{"what":"click","ref":"e4","click_count":2}`),
		json.RawMessage(`{"action":"click","tab_id":7,"target":"button \"Add\"","changes":{"url":{"from":"a","to":"b"}}}`), true, at)
	assert.Equal(t, `role=button[name="Add"s]`, a.Selector)
	assert.Equal(t, 7, a.TabID)
	assert.Equal(t, 2, a.Clicks)
	assert.Equal(t, "b", a.PageURL)
	f := ActionOf("fill_form", parsed(t, `{"what":"fill_form","fields":[{"ref":"e1","value":"Ada"},{"selector":"#n","value":true}]}`),
		json.RawMessage(`{"steps":[{"target":"textbox \"Name\""},{"target":"checkbox \"News\""}]}`), true, at)
	require.Len(t, f.Fields, 2)
	assert.Equal(t, `role=textbox[name="Name"s]`, f.Fields[0].Selector)
	assert.Equal(t, "#n", f.Fields[1].Selector)
	assert.Equal(t, "true", f.Fields[1].Value)
}

// parsed is an interact call's arguments as the dispatcher decodes them.
func parsed(t *testing.T, args string) *tools.Args {
	t.Helper()
	c, e := tools.Parse("interact", json.RawMessage(args))
	require.Nil(t, e)
	return &c.Args
}

func TestReproduction(t *testing.T) {
	acts := []Action{
		{Seq: 1, Mode: "navigate", URL: "http://127.0.0.1:1/form.html", OK: true},
		{Seq: 2, Mode: "type", Selector: "label=Name", Text: "Ada </script>", Clear: true, OK: true},
		{Seq: 3, Mode: "click", Selector: `role=button[name="Add"s]`, OK: true},
		{Seq: 4, Mode: "click", Ref: "e9", Target: `div "x"`, OK: true},
		{Seq: 5, Mode: "check", Selector: "#agree", Checked: ptr(false), OK: true},
		{Seq: 6, Mode: "click", Selector: "#broken", OK: false},
	}
	doc := Document{Session: Session{ID: "s1"}, Replay: ReplayOf(acts, "", "http://127.0.0.1:1/done", Viewport{})}
	assert.Equal(t, "http://127.0.0.1:1/form.html", doc.Replay.StartURL)
	script := Reproduction(doc)
	for _, want := range []string{
		`await page.goto("http://127.0.0.1:1/form.html");`,
		`await page.getByLabel("Name").fill("Ada \u003c/script\u003e");`,
		`await page.locator("role=button[name=\"Add\"s]").click();`,
		`// #4 click on div "x": no stable selector`,
		`await page.locator("#agree").setChecked(false);`,
		`// #6 click failed when recorded; skipped`,
		"const viewport = { width: 1280, height: 720 };",
		"module.exports = { replay, viewport };",
	} {
		assert.Contains(t, script, want)
	}
	test := Test(doc, "")
	assert.Contains(t, test, `await expect(page.getByLabel("Name")).toHaveValue("Ada \u003c/script\u003e");`)
	assert.Contains(t, test, `await expect(page.locator("#agree")).not.toBeChecked();`)
	assert.Contains(t, test, `await expect(page).toHaveURL("http://127.0.0.1:1/done");`)
}

func TestHAR(t *testing.T) {
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	h := BuildHAR([]capture.Request{
		{Method: "GET", URL: "http://127.0.0.1/a?x=1", Status: 200, StatusText: "OK", MimeType: "text/html", Start: start, TTFBMs: 5, DurationMs: 9},
		{Method: "POST", URL: "http://127.0.0.1/api", Failed: true, ErrorText: "net::ERR_FAILED", Start: start},
	}, "http://127.0.0.1/a", "A", "0.1.0", "")
	raw, err := json.Marshal(h)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	log := v["log"].(map[string]any)
	assert.Equal(t, "1.2", log["version"])
	entries := log["entries"].([]any)
	require.Len(t, entries, 2)
	e0 := entries[0].(map[string]any)
	assert.Equal(t, []any{map[string]any{"name": "x", "value": "1"}}, e0["request"].(map[string]any)["queryString"])
	tm := e0["timings"].(map[string]any)
	assert.EqualValues(t, 5, tm["wait"])
	assert.EqualValues(t, 4, tm["receive"])
	assert.True(t, strings.Contains(string(raw), `"_error":"net::ERR_FAILED"`))
	assert.Len(t, BuildHAR(nil, "", "", "v", "").Log.Entries, 0)
}

func TestPasswordNeverRecorded(t *testing.T) {
	a := ActionOf("type", parsed(t, `{"what":"type","selector":"#password","text":"hunter2"}`), nil, true, time.Now())
	assert.Equal(t, "[REDACTED:password]", a.Text)
	a = ActionOf("type", parsed(t, `{"what":"type","ref":"e3","text":"hunter2"}`), json.RawMessage(`{"target":"textbox \"Password\""}`), true, time.Now())
	assert.Equal(t, "[REDACTED:password]", a.Text)
	a = ActionOf("type", parsed(t, `{"what":"type","selector":"#name","text":"Ada"}`), nil, true, time.Now())
	assert.Equal(t, "Ada", a.Text)
}
