package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayTool returns node and tools/replay/replay.mjs, skipping the test
// when the npm tooling is not installed — except in CI, where a missing
// tool fails (make test runs `npm ci` in tools/replay first).
func replayTool(t *testing.T) (node, script string) {
	t.Helper()
	dir := filepath.Join(RepoRoot(), "tools", "replay")
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json"))
	if err != nil || modErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("replay tooling missing in CI (node: %v, playwright-core: %v); run make replay-deps", err, modErr)
		}
		t.Skip("tools/replay/node_modules missing: run `make replay-deps` (npm ci in tools/replay)")
	}
	return node, filepath.Join(dir, "replay.mjs")
}

// plantedKey is a secret the session types and puts in a URL; no export
// may contain it.
const plantedKey = "sk-ant-api03-KzVW8WaoLRSSDpFlrji0fXow8dqDnjeMwgH-mXrIWB2T_8cpWiwuwTrLEcpHtSjWwdFXcBxlMYy63VyDCOnLc5AAAA"

var refRe = regexp.MustCompile(`checkbox "buy milk" \[(e\d+)\]`)

// TestE2EExportReplay records a session over MCP in the real chain (type,
// click by selector, click by ref, a double click, a batch whose steps
// are written with what and with its older alias action, select, a
// secret typed into a field),
// generates the reproduction, the test and the HAR, checks that none
// holds the planted secret, and replays the reproduction with
// playwright-core in Debian Chromium against the same page: the page ends
// in the state the recorded session left it in.
func TestE2EExportReplay(t *testing.T) {
	node, replay := replayTool(t)
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "export-e2e")
	page := r.url("pages/export/todo.html?session_id=" + plantedKey[:40])

	tab := c.newTab(page)
	act := func(args map[string]any) answer {
		t.Helper()
		args["tab_id"] = tab
		return c.ok("interact", args)
	}
	act(map[string]any{"what": "type", "selector": "#item", "text": "buy milk", "clear": true})
	act(map[string]any{"what": "click", "selector": "#add"})
	act(map[string]any{"what": "type", "selector": "label=New item", "text": "call Ada", "clear": true})
	act(map[string]any{"what": "key_press", "keys": "Enter"})
	snap := c.observe("snapshot", map[string]any{"tab_id": tab, "interactive_only": true})
	m := refRe.FindStringSubmatch(snap.Text)
	require.NotNil(t, m, "no ref for the new checkbox in:\n%s", snap.Text)
	act(map[string]any{"what": "click", "ref": m[1]})
	act(map[string]any{"what": "click", "selector": "#star", "click_count": 2}) // a double click
	act(map[string]any{"what": "batch", "steps": []any{                         // recorded step by step
		map[string]any{"action": "select", "selector": "#priority", "value": "high"}, // the older alias of what
		map[string]any{"what": "type", "selector": "#note", "text": "token " + plantedKey, "clear": true},
	}})
	recorded := act(map[string]any{"what": "get_text", "selector": "#state"})
	var state map[string]any
	require.NoError(t, json.Unmarshal([]byte(recorded.Data["value"].(string)), &state), recorded.Text)
	require.Len(t, state["items"], 2)
	require.Equal(t, "high", state["priority"])
	require.EqualValues(t, 1, state["stars"], "the double click reached the page")

	repro := c.ok("generate", map[string]any{"what": "reproduction", "tab_id": tab})
	script := repro.Data["content"].(string)
	t.Logf("reproduction (%v actions, %v replayable, %d bytes):\n%s", repro.Data["actions"], repro.Data["replayable"], len(script), script)
	test := c.ok("generate", map[string]any{"what": "test", "tab_id": tab, "name": "todo"}).Data["content"].(string)
	har := c.ok("generate", map[string]any{"what": "har", "tab_id": tab}).Data["content"].(string)
	for name, out := range map[string]string{"reproduction": script, "test": test, "har": har} {
		assert.NotContains(t, out, plantedKey[:40], "%s leaks the planted key", name)
		assert.NotContains(t, out, "KzVW8WaoLRSSDpFlrji0fXow8dqDnjeMwgH", "%s leaks the planted key", name)
	}
	assert.Contains(t, script, `role=checkbox[name=\"buy milk\"s]`, "the ref became a stable selector")
	assert.Contains(t, script, `page.getByLabel("New item")`)
	assert.Contains(t, script, `await page.locator("#star").click({ clickCount: 2 });`, "a double click replays as one")
	assert.Contains(t, script, `await page.locator("#priority").selectOption("high");`, "the step written with action is recorded")
	assert.Contains(t, test, "toHaveValue")
	assert.Contains(t, har, `"version": "1.2"`)
	assert.Contains(t, har, "pages/export/todo.html")

	file := filepath.Join(t.TempDir(), "reproduction.js")
	require.NoError(t, os.WriteFile(file, []byte(script), 0o600))
	testFile := filepath.Join(t.TempDir(), "todo.spec.js")
	require.NoError(t, os.WriteFile(testFile, []byte(test), 0o600))
	for _, f := range []string{file, testFile} { // both parse as JavaScript
		out, err := exec.Command(node, "--check", f).CombinedOutput()
		require.NoError(t, err, "%s: %s", f, out)
	}
	require.True(t, json.Valid([]byte(har)), "the HAR is JSON")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, replay, file, "--check", "document.querySelector('#state').textContent")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("replay with playwright-core in Debian Chromium: %s", time.Since(start).Round(time.Millisecond))
	require.NoError(t, err, "replay failed:\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	var report struct {
		OK    bool   `json:"ok"`
		URL   string `json:"url"`
		Check string `json:"check"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &report), stdout.String())
	require.True(t, report.OK)
	var replayed map[string]any
	require.NoError(t, json.Unmarshal([]byte(report.Check), &replayed))
	assert.Equal(t, state["items"], replayed["items"], "items and their done state")
	assert.Equal(t, state["priority"], replayed["priority"])
	assert.Equal(t, state["stars"], replayed["stars"], "the replay double-clicked")
	assert.Equal(t, state["clicks"], replayed["clicks"])
	assert.True(t, strings.HasPrefix(report.URL, r.url("pages/export/todo.html")), report.URL)
	// The note held the secret: the replay typed the redaction marker
	// instead, never the key.
	assert.NotEqual(t, state["note_length"], replayed["note_length"])
}
