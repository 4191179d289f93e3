//go:build linux

package e2e

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2ERealAppJupyter: four everyday tasks in classic Jupyter Notebook,
// through the MCP client, the way an agent does them — make a notebook
// and run a cell, rename it, create and save a text file, read the
// version from Help ▸ About — with no detour: the tab the page opens is
// the session's, icon buttons click, typing into the code editor answers
// success once, the About text is in the snapshot, leaving unsaved work
// reports the leave-page dialog at once, no answer flags Gasoline's own
// words as the page's. Results are checked through Jupyter's REST API.
//
// Two of its checks belong to other branches of issue 28 and fail on
// this branch alone until they are merged: "about/version in snapshot"
// (branch visible: the fading dialog's text) and "no own words flagged"
// (branch scanner). They are named so in their failure messages.
func TestE2ERealAppJupyter(t *testing.T) {
	j := startJupyter(t)
	x := startInteract(t, "realapp")
	rec := &recorder{t: t, j: j, c: x.client}

	tree := rec.newTab(j.url("/tree"))
	t.Run("first snapshot after navigating", func(t *testing.T) {
		rec.t = t // item 6: the tree page shows itself from script; the snapshot waits for it or says so
		if !rec.snapRendered() {
			rec.waitSelector("#notebook_list", nil) // the detour: wait for the list by hand
		}
	})

	var nbTab int
	var nbName string
	t.Run("notebook: make one and run a cell", func(t *testing.T) {
		rec.t = t
		rec.act("click", map[string]any{"selector": `role=button[name="Refresh notebook list"]`}) // item 2: an icon button
		rec.act("click", map[string]any{"selector": "role=button[name=New]"})
		rec.waitSelector("text=Python 3 (ipykernel)", nil) // the kernels are listed from the API
		a := rec.act("click", map[string]any{"selector": "text=Python 3 (ipykernel)"})
		nbName = notebookName(t, j)
		nbTab = rec.opened(a, tree, "/notebooks/"+nbName) // item 1: the popup is the session's and the answer names it
		rec.waitSelector(".CodeMirror", map[string]any{"tab_id": nbTab})
		// The notebook is ready when its kernel is (a cell run before then is dropped).
		rec.act("wait_for", map[string]any{"selector": ".kernel_idle_icon", "state": "attached", "timeout_ms": 30000})

		// Item 3: typing into CodeMirror answers success once; get_value reads it.
		code := "x = 6 * 7\nprint(x)" // CodeMirror 5 empties its textarea on a line break
		a = rec.act("type", map[string]any{"selector": ".cell .CodeMirror textarea", "text": code})
		require.NotContains(t, a.Text, "not_applied", "type into CodeMirror")
		v := rec.act("get_value", map[string]any{"selector": ".cell .CodeMirror textarea"})
		require.Equal(t, code, v.Data["value"], "get_value of the CodeMirror cell: %s", v.Text)

		// Item 2: icon buttons click.
		rec.act("click", map[string]any{"selector": `button[data-jupyter-action="jupyter-notebook:run-cell-and-select-next"]`})
		rec.waitSelector(".output_area pre", map[string]any{"tab_id": nbTab})
		rec.act("click", map[string]any{"selector": `button[title="Save and Checkpoint"]`})
		eventually(t, 20*time.Second, "the notebook saved with the cell and its output", func() bool {
			src, out := notebookCell(j, nbName)
			return src == code && strings.Contains(out, "42")
		})
		require.NotEmpty(t, j.kernels(), "no kernel runs the notebook")
	})

	t.Run("notebook: rename it", func(t *testing.T) {
		rec.t = t
		require.NotZero(t, nbTab, "no notebook tab")
		rec.act("click", map[string]any{"selector": "#notebook_name", "tab_id": nbTab})
		rec.waitSelector(".modal-body input", nil) // the dialog fades in
		rec.act("fill_form", map[string]any{"fields": []any{map[string]any{"selector": ".modal-body input", "value": "Answers"}}})
		rec.act("click", map[string]any{"selector": "role=button[name=Rename]"})
		eventually(t, 20*time.Second, "Answers.ipynb in the contents API", func() bool {
			_, err := j.file("Answers.ipynb")
			return err == nil
		})
		nbName = "Answers.ipynb"
		rec.act("wait_for", map[string]any{"selector": ".modal", "state": "detached", "timeout_ms": 20000}) // it fades out
	})

	t.Run("about: read the version", func(t *testing.T) {
		rec.t = t
		require.NotZero(t, nbTab, "no notebook tab")
		var st struct {
			Version string `json:"version"`
		}
		require.NoError(t, j.api("/api", &st))
		rec.act("click", map[string]any{"selector": "text=Help", "tab_id": nbTab})
		rec.act("click", map[string]any{"selector": "#notebook_about"})
		rec.waitSelector(".modal-body", nil)
		s := rec.observe("snapshot", nil)
		assert.Contains(t, s.Page, st.Version, "[branch visible] the About dialog's text is not in the snapshot:\n%s", s.Text)
		rec.act("click", map[string]any{"selector": "role=button[name=OK]"})
		rec.act("wait_for", map[string]any{"selector": ".modal", "state": "detached", "timeout_ms": 20000})
	})

	t.Run("leave unsaved work: the dialog is answered at once", func(t *testing.T) {
		rec.t = t
		require.NotZero(t, nbTab, "no notebook tab")
		rec.act("type", map[string]any{"selector": ".cell .CodeMirror textarea", "text": "# unsaved", "tab_id": nbTab})
		eventually(t, 10*time.Second, "the notebook marked dirty", func() bool {
			return js[bool](x.client, "Jupyter.notebook.dirty === true")
		})
		// A long timeout: a call that waited behind the dialog would end
		// in timeout or still_processing, not dialog_open.
		a := rec.call("interact", map[string]any{"what": "navigate", "url": j.url("/tree"), "timeout_ms": 60000})
		require.True(t, a.IsError, "navigate away from unsaved work answered %s", a.Text)
		require.Equal(t, "dialog_open", a.code(), "navigate away from unsaved work: %s", a.Text)
		require.Contains(t, a.Text, "beforeunload", a.Text)
		rec.act("handle_dialog", map[string]any{"accept": true})
		rec.waitURL("/tree")
	})

	t.Run("text file: create and save it", func(t *testing.T) {
		rec.t = t
		rec.act("click", map[string]any{"selector": "role=button[name=New]", "tab_id": tree})
		rec.waitSelector("text=Text File", nil)
		a := rec.act("click", map[string]any{"selector": "text=Text File"})
		edit := rec.opened(a, tree, "/edit/untitled.txt")
		rec.waitSelector(".CodeMirror", map[string]any{"tab_id": edit})
		text := "hello from the agent\nsecond line"
		a = rec.act("type", map[string]any{"selector": ".CodeMirror textarea", "text": text, "tab_id": edit})
		require.NotContains(t, a.Text, "not_applied", "type into the text editor")
		rec.act("key_press", map[string]any{"keys": "Control+s"})
		eventually(t, 20*time.Second, "untitled.txt saved with the text", func() bool {
			f, err := j.file("untitled.txt")
			var s string
			json.Unmarshal(f.Content, &s)
			return err == nil && strings.TrimSpace(s) == text
		})
	})

	t.Run("no answer flags Gasoline's own words", func(t *testing.T) {
		for _, a := range rec.all { // Jupyter's pages hold no instruction-like text
			flagged := a.Data["suspected_instructions"] != nil || strings.Contains(a.Text, "read like instructions")
			require.False(t, flagged, "[branch scanner] an answer flags instruction-like text on a page that has none:\n%s", a.Text)
		}
	})
}

// recorder makes the suite's calls and keeps every answer.
type recorder struct {
	t   testing.TB
	j   *jupyter
	c   *client
	all []answer
}

func (r *recorder) call(tool string, args map[string]any) answer {
	r.c.t = r.t
	a := r.c.call(tool, args)
	r.all = append(r.all, a)
	r.t.Logf("%s %v → %.300s", tool, args, a.Text)
	return a
}

func (r *recorder) act(what string, args map[string]any) answer {
	r.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	a := r.call("interact", m)
	require.False(r.t, a.IsError, "interact %s %v failed: %s", what, args, a.Text)
	return a
}

func (r *recorder) observe(what string, args map[string]any) answer {
	r.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	a := r.call("observe", m)
	require.False(r.t, a.IsError, "observe %s %v failed: %s", what, args, a.Text)
	return a
}

func (r *recorder) newTab(url string) int {
	a := r.act("new_tab", map[string]any{"url": url})
	return int(a.Data["tab_id"].(float64))
}

func (r *recorder) waitSelector(sel string, extra map[string]any) {
	r.t.Helper()
	args := map[string]any{"selector": sel, "timeout_ms": 20000}
	for k, v := range extra {
		args[k] = v
	}
	r.act("wait_for", args)
}

func (r *recorder) waitURL(part string) {
	r.t.Helper()
	r.act("wait_for", map[string]any{"url": part, "timeout_ms": 20000})
}

// snapRendered takes the first snapshot after a navigation: it must hold
// the page's controls (the page renders them within a few hundred ms), or
// say the page has not rendered yet — never an empty tree.
func (r *recorder) snapRendered() bool {
	r.t.Helper()
	a := r.observe("snapshot", nil)
	if strings.Contains(a.Text, "has not rendered content yet") {
		return false
	}
	_, tree, _ := strings.Cut(a.Page, "\n")
	if strings.TrimSpace(tree) == "" {
		r.t.Errorf("the first snapshot is an empty tree with nothing saying the page is rendering: %s", a.Text)
		return false
	}
	return true
}

// opened reads "opened tab N: <url>" from an action's answer and checks
// observe tabs lists tab N with its opener. When the answer names no tab
// it fails the test and takes the detour an agent had to take before
// issue 28 (open the document in a tab of its own), so that the rest of
// the suite still runs and shows what else fails.
func (r *recorder) opened(a answer, opener int, path string) int {
	r.t.Helper()
	m := openedRe.FindStringSubmatch(a.Text)
	if m == nil {
		r.t.Errorf("the action's answer names no tab it opened: %s", a.Text)
		return r.newTab(r.j.url(path))
	}
	n, _ := strconv.Atoi(m[1])
	tabs := r.observe("tabs", nil)
	entry := tabIn(tabs, n)
	require.NotNil(r.t, entry, "observe tabs does not list the opened tab %d: %s", n, tabs.Text)
	require.EqualValues(r.t, opener, entry["opener"], "tab %d names no opener: %s", n, tabs.Text)
	return n
}

// notebookName is the one notebook in the directory.
func notebookName(t testing.TB, j *jupyter) string {
	t.Helper()
	var name string
	eventually(t, 20*time.Second, "a notebook in the contents API", func() bool {
		for _, c := range j.list() {
			if c.Type == "notebook" {
				name = c.Path
				return true
			}
		}
		return false
	})
	return name
}

// notebookCell reads the first code cell's source and outputs as saved.
func notebookCell(j *jupyter, path string) (src, out string) {
	f, err := j.file(path)
	if err != nil {
		return "", ""
	}
	var nb struct {
		Cells []struct {
			Type    string          `json:"cell_type"`
			Source  json.RawMessage `json:"source"`
			Outputs json.RawMessage `json:"outputs"`
		} `json:"cells"`
	}
	if json.Unmarshal(f.Content, &nb) != nil || len(nb.Cells) == 0 {
		return "", ""
	}
	c := nb.Cells[0]
	var s string
	if json.Unmarshal(c.Source, &s) != nil {
		var parts []string
		json.Unmarshal(c.Source, &parts)
		s = strings.Join(parts, "")
	}
	return s, string(c.Outputs)
}
