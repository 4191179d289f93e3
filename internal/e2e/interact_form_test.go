package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestE2EInteractForm(t *testing.T) {
	x := startInteract(t, "interact-form")
	x.open("form.html")
	val := func(id string) string { return js[string](x.client, `document.getElementById('`+id+`').value`) }

	snap := x.snap(map[string]any{"interactive_only": true})
	t.Logf("form snapshot:\n%s", snap)

	t.Run("type by ref and by semantic selector, read back", func(t *testing.T) {
		a := x.act("type", map[string]any{"ref": refOf(t, snap, `textbox "Full name"`), "text": "Grace Hopper", "clear": true})
		t.Log(a.Text)
		assert.Equal(t, "Grace Hopper", val("name"))
		x.act("type", map[string]any{"selector": "placeholder=you@example.com", "text": "grace@example.com"})
		assert.Equal(t, "grace@example.com", val("email"))
		a = x.act("type", map[string]any{"selector": `role=textbox[name="Password"]`, "text": "hunter2"})
		assert.NotContains(t, a.Text, "hunter2", "a password never shows in the answer")
		assert.Equal(t, "hunter2", val("password"))
		x.act("type", map[string]any{"ref": refOf(t, snap, `textbox "Tell us about you"`), "text": "line one\nline two"})
		assert.Equal(t, "line one\nline two", val("bio"))
		assert.Contains(t, js[[]string](x.client, `events`), "email:input:true", "typing is trusted input")
	})

	t.Run("type by ref stops before typing into a field that is gone or refuses text", func(t *testing.T) {
		snap := x.snap(nil)
		email := refOf(t, snap, `textbox "Email"`)
		before := val("email")
		// The ref's element leaves the page: stale, naming it, nothing typed.
		js[bool](x.client, `(() => { const e = document.getElementById('email'); window.__email = e; e.remove(); return true })()`)
		a := x.fail("stale_ref", "type", map[string]any{"ref": email, "text": "lost"})
		assert.Contains(t, a.Text, `textbox "Email"`)
		js[bool](x.client, `(() => { document.querySelector('form').prepend(window.__email); return true })()`)
		assert.Equal(t, before, val("email"), "nothing was typed")
		// A control that takes no text: refused before Input.insertText.
		focused := js[string](x.client, `document.activeElement && document.activeElement.id`)
		x.fail("not_editable", "type", map[string]any{"ref": refOf(t, snap, `checkbox "I accept the terms"`), "text": "x"})
		assert.Equal(t, focused, js[string](x.client, `document.activeElement && document.activeElement.id`), "focus did not move")
	})

	t.Run("select, check and radio", func(t *testing.T) {
		x.act("select", map[string]any{"ref": refOf(t, snap, `combobox "Plan"`), "value": "Team plan"})
		assert.Equal(t, "team", val("plan"))
		x.act("check", map[string]any{"ref": refOf(t, snap, `checkbox "I accept the terms"`)})
		assert.True(t, js[bool](x.client, `document.getElementById('terms').checked`))
		x.act("check", map[string]any{"selector": "#terms", "checked": false})
		assert.False(t, js[bool](x.client, `document.getElementById('terms').checked`))
		x.act("check", map[string]any{"selector": `role=radio[name="Phone"]`})
		assert.Equal(t, "phone", js[string](x.client, `document.querySelector('[name=contact]:checked').value`))
		x.fail("no_option", "select", map[string]any{"selector": "#plan", "value": "gold"})
	})

	t.Run("upload sets files and refuses credentials", func(t *testing.T) {
		dir := t.TempDir()
		f := filepath.Join(dir, "report.txt")
		require.NoError(t, os.WriteFile(f, []byte("hello"), 0o600))
		x.act("upload", map[string]any{"selector": "label=Avatar", "files": []any{f}})
		assert.Equal(t, []string{"report.txt"}, js[[]string](x.client, `[...document.getElementById('avatar').files].map(f => f.name)`))
		ssh := filepath.Join(dir, ".ssh")
		require.NoError(t, os.MkdirAll(ssh, 0o700))
		key := filepath.Join(ssh, "id_ed25519")
		require.NoError(t, os.WriteFile(key, []byte("KEY"), 0o600))
		x.fail("refused_path", "upload", map[string]any{"selector": "#avatar", "files": []any{key}})
		x.fail("refused_path", "upload", map[string]any{"selector": "#avatar", "files": []any{filepath.Join(x.Home, "state.json")}})
		assert.Equal(t, 1, js[int](x.client, `document.getElementById('avatar').files.length`), "a refused upload changes nothing")
	})

	t.Run("fill_form and submit", func(t *testing.T) {
		a := x.act("fill_form", map[string]any{"submit": true, "fields": []any{
			map[string]any{"selector": "#name", "value": "Ada Lovelace"},
			map[string]any{"ref": refOf(t, snap, `textbox "Email"`), "value": "ada@example.com"},
			map[string]any{"selector": "#plan", "value": "Pro"},
			map[string]any{"selector": "#terms", "value": true},
			map[string]any{"selector": "[name=contact]", "value": "Email"},
			map[string]any{"selector": "#bio", "value": "Analyst"},
		}})
		t.Log(a.Text)
		// The password is read apart: results are redacted by key on the way out.
		got := js[map[string]string](x.client, `(({password, ...rest}) => rest)(JSON.parse(document.getElementById('result').textContent))`)
		assert.Equal(t, map[string]string{"name": "Ada Lovelace", "email": "ada@example.com", "plan": "pro",
			"terms": "on", "contact": "email", "bio": "Analyst", "avatar": "report.txt", "qty": "1"}, got)
		assert.True(t, js[bool](x.client, `JSON.parse(document.getElementById('result').textContent).password === 'hunter2'`))
	})

	t.Run("reads and query", func(t *testing.T) {
		a := x.act("get_value", map[string]any{"selector": "#email"})
		assert.Equal(t, "ada@example.com", a.Data["value"])
		a = x.act("get_value", map[string]any{"selector": "#password"})
		assert.Equal(t, "••••", a.Data["value"], "password values are masked")
		a = x.act("get_text", map[string]any{"selector": "h1"})
		assert.Equal(t, "Order", a.Data["value"])
		a = x.act("get_attribute", map[string]any{"selector": "text=Read the details", "name": "href"})
		assert.Equal(t, "#details", a.Data["value"])
		a = x.act("query", map[string]any{"selector": "role=button"})
		assert.Contains(t, a.Text, "5 element(s) match role=button")
	})

	t.Run("click with a modifier, double click, ambiguous selector", func(t *testing.T) {
		js[any](x.client, `document.getElementById('count').addEventListener('click', e => events.push('shift:' + e.shiftKey))`)
		x.act("click", map[string]any{"selector": "#count", "modifiers": "Shift"})
		x.act("click", map[string]any{"selector": "text=Count", "click_count": 2})
		assert.Equal(t, "3", js[string](x.client, `document.getElementById('count').dataset.n`))
		assert.Contains(t, js[[]string](x.client, `events`), "shift:true")
		x.fail("ambiguous_target", "click", map[string]any{"selector": "text=Save"})
		x.act("click", map[string]any{"selector": "text=Save >> nth=1"})
		x.fail("not_found", "click", map[string]any{"selector": "text=Nothing like this"})
	})

	t.Run("batch runs steps in order and refuses sensitive steps", func(t *testing.T) {
		a := x.act("batch", map[string]any{"steps": []any{
			map[string]any{"what": "type", "selector": "#name", "text": "Batch", "clear": true},
			map[string]any{"what": "click", "selector": "#count"},
			map[string]any{"what": "get_value", "selector": "#name"},
		}})
		t.Log(a.Text)
		assert.Equal(t, "Batch", val("name"))
		assert.Equal(t, "4", js[string](x.client, `document.getElementById('count').dataset.n`))
		a = x.fail("not_found", "batch", map[string]any{"steps": []any{
			map[string]any{"what": "type", "selector": "#name", "text": "!"},
			map[string]any{"what": "click", "selector": "#nope"},
			map[string]any{"what": "type", "selector": "#name", "text": "never"},
		}})
		assert.Contains(t, a.Text, "step 2 of 3")
		assert.Equal(t, "Batch!", val("name"), "the steps before the failure ran, none after")
		x.fail("invalid_argument", "batch", map[string]any{"steps": []any{map[string]any{"what": "execute_js", "script": "1"}}})
	})
}
