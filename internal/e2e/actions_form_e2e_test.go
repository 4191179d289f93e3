package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

func TestE2EActionForm(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	s := f.page(t, ctx, "form.html")
	tab := s.TabID()
	val := func(id string) string { return read[string](t, ctx, s, `document.getElementById('`+id+`').value`) }

	t.Run("click by CSS is trusted and counted", func(t *testing.T) {
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#count")})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.Equal(t, `clicked button "Count"`, r.Message)
		assert.Equal(t, "1", read[string](t, ctx, s, `document.getElementById('count').dataset.n`))
		r, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Count"), ClickCount: 2})
		require.NoError(t, err)
		assert.Equal(t, `double-clicked button "Count"`, r.Message)
		assert.Equal(t, "3", read[string](t, ctx, s, `document.getElementById('count').dataset.n`))
		assert.Equal(t, []string{"count:click:true:1", "count:click:true:1", "count:click:true:2"},
			read[[]string](t, ctx, s, `events.filter(e => e.startsWith('count'))`))
	})

	t.Run("type appends, clear replaces, events are trusted", func(t *testing.T) {
		r, err := f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("label=Full name"), Text: " Lovelace"})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.Equal(t, "Ada Lovelace", val("name"))
		_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("placeholder=you@example.com"), Text: "ada@example.com", Clear: true})
		require.NoError(t, err)
		assert.Equal(t, "ada@example.com", val("email"))
		assert.Contains(t, read[[]string](t, ctx, s, `events`), "email:input:true")
		_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("#name"), Text: "Grace", Clear: true})
		require.NoError(t, err)
		assert.Equal(t, "Grace", val("name"))
		r, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("role=textbox[name=\"Password\"]"), Text: "hunter2"})
		require.NoError(t, err)
		assert.Equal(t, "hunter2", val("password"))
		assert.NotContains(t, r.Text(), "hunter2", "a password never shows in the answer")
		_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("textarea"), Text: "line one\nline two"})
		require.NoError(t, err)
		assert.Equal(t, "line one\nline two", val("bio"))
	})

	t.Run("type into something that takes no text fails", func(t *testing.T) {
		_, err := f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("#count"), Text: "x"})
		assert.Equal(t, actions.CodeNotEditable, codeOf(err), "%v", err)
	})

	t.Run("select by value and by label", func(t *testing.T) {
		r, err := f.eng.Select(ctx, tab, actions.SelectArgs{Target: sel("label=Plan"), Value: "team"})
		require.NoError(t, err)
		assert.Equal(t, `selected "Team plan" in combobox "Plan"`, r.Message)
		assert.Equal(t, "team", val("plan"))
		_, err = f.eng.Select(ctx, tab, actions.SelectArgs{Target: sel("#plan"), Value: "free"})
		require.NoError(t, err)
		assert.Equal(t, "free", val("plan"))
		_, err = f.eng.Select(ctx, tab, actions.SelectArgs{Target: sel("#plan"), Value: "Team Plan"})
		require.NoError(t, err)
		assert.Equal(t, "team", val("plan"))
		assert.Contains(t, read[[]string](t, ctx, s, `events`), "plan:change:false", "a programmatic choice fires change")
		_, err = f.eng.Select(ctx, tab, actions.SelectArgs{Target: sel("#plan"), Value: "gold"})
		assert.Equal(t, actions.CodeNoOption, codeOf(err))

		r, err = f.eng.Select(ctx, tab, actions.SelectArgs{Target: sel("role=combobox[name=Color]"), Value: "Blue"})
		require.NoError(t, err, "a custom listbox is opened and its option clicked")
		assert.Equal(t, `selected option "Blue" in combobox "Color"`, r.Message)
		assert.Equal(t, "Blue", read[string](t, ctx, s, `document.getElementById('color').textContent`))
		assert.True(t, read[bool](t, ctx, s, `document.getElementById('colors').hidden`))
	})

	t.Run("check only when the state differs, through a label when hidden", func(t *testing.T) {
		yes, no := true, false
		r, err := f.eng.Check(ctx, tab, actions.CheckArgs{Target: sel("label=I accept the terms")})
		require.NoError(t, err)
		assert.Equal(t, `checked checkbox "I accept the terms"`, r.Message)
		assert.True(t, read[bool](t, ctx, s, `document.getElementById('terms').checked`))
		r, err = f.eng.Check(ctx, tab, actions.CheckArgs{Target: sel("#terms"), Checked: &yes})
		require.NoError(t, err)
		assert.Contains(t, r.Message, "was already checked")
		_, err = f.eng.Check(ctx, tab, actions.CheckArgs{Target: sel("#terms"), Checked: &no})
		require.NoError(t, err)
		assert.False(t, read[bool](t, ctx, s, `document.getElementById('terms').checked`))
		_, err = f.eng.Check(ctx, tab, actions.CheckArgs{Target: sel("#styled")})
		require.NoError(t, err, "a visually hidden checkbox is checked through its label")
		assert.True(t, read[bool](t, ctx, s, `document.getElementById('styled').checked`))
		_, err = f.eng.Check(ctx, tab, actions.CheckArgs{Target: sel(`role=radio[name="Phone"]`)})
		require.NoError(t, err)
		assert.Equal(t, "phone", read[string](t, ctx, s, `document.querySelector('[name=contact]:checked').value`))
		_, err = f.eng.Check(ctx, tab, actions.CheckArgs{Target: sel(`role=radio[name="Phone"]`), Checked: &no})
		assert.Equal(t, "invalid_argument", codeOf(err))
	})

	t.Run("upload sets files and refuses credentials", func(t *testing.T) {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "report.txt"), filepath.Join(dir, "photo.png")
		require.NoError(t, os.WriteFile(a, []byte("hello"), 0o600))
		require.NoError(t, os.WriteFile(b, []byte("png"), 0o600))
		r, err := f.eng.Upload(ctx, tab, actions.UploadArgs{Target: sel("label=Avatar"), Files: []string{a, b}})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.Equal(t, []string{"report.txt", "photo.png"}, read[[]string](t, ctx, s, `[...document.getElementById('avatar').files].map(f => f.name)`))
		assert.Contains(t, read[[]string](t, ctx, s, `events`), "avatar:change:true")

		ssh := filepath.Join(dir, ".ssh")
		require.NoError(t, os.MkdirAll(ssh, 0o700))
		key := filepath.Join(ssh, "deploy")
		require.NoError(t, os.WriteFile(key, []byte("KEY"), 0o600))
		link := filepath.Join(dir, "innocent.txt")
		require.NoError(t, os.Symlink(key, link))
		for _, p := range []string{key, link, filepath.Join(dir, "missing.txt"), filepath.Join(f.c.Home, "state.json")} {
			_, err = f.eng.Upload(ctx, tab, actions.UploadArgs{Target: sel("#avatar"), Files: []string{p}})
			assert.Equal(t, actions.CodeRefusedPath, codeOf(err), "%s: %v", p, err)
		}
		assert.Equal(t, 2, read[int](t, ctx, s, `document.getElementById('avatar').files.length`), "a refused upload changes nothing")
	})

	t.Run("fill_form and submit echo the values", func(t *testing.T) {
		r, err := f.eng.FillForm(ctx, tab, actions.FillArgs{Submit: true, Fields: []actions.Field{
			{Target: sel("#name"), Value: "Ada Lovelace"},
			{Target: sel("#email"), Value: "ada@example.com"},
			{Target: sel("#plan"), Value: "Pro"},
			{Target: sel("#terms"), Value: true},
			{Target: sel("#qty"), Value: 3.0},
			{Target: sel("[name=contact]"), Value: "Email"},
			{Target: sel("#bio"), Value: "Analyst"},
		}})
		require.NoError(t, err)
		t.Log(r.Text())
		got := read[map[string]string](t, ctx, s, `JSON.parse(document.getElementById('result').textContent)`)
		assert.Equal(t, map[string]string{"name": "Ada Lovelace", "email": "ada@example.com", "password": "hunter2", "plan": "pro",
			"terms": "on", "styled": "on", "contact": "email", "bio": "Analyst", "avatar": "photo.png", "qty": "3"}, got)
	})

	t.Run("reads and query", func(t *testing.T) {
		r, err := f.eng.GetText(ctx, tab, actions.ReadArgs{Target: sel("h1")})
		require.NoError(t, err)
		assert.Equal(t, "Order", r.Value)
		r, err = f.eng.GetValue(ctx, tab, actions.ReadArgs{Target: sel("#email")})
		require.NoError(t, err)
		assert.Equal(t, "ada@example.com", r.Value)
		r, err = f.eng.GetValue(ctx, tab, actions.ReadArgs{Target: sel("#password")})
		require.NoError(t, err)
		assert.Equal(t, "••••", r.Value)
		r, err = f.eng.GetAttribute(ctx, tab, actions.ReadArgs{Target: sel("text=Read the details"), Name: "href"})
		require.NoError(t, err)
		assert.Equal(t, "#details", r.Value)
		r, err = f.eng.Query(ctx, tab, actions.QueryArgs{Selector: "role=button"})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.Contains(t, r.Message, `5 element(s) match role=button: button "Avatar", button "Count", button "Save", button "Save", button "Place order"`)
	})

	t.Run("an ambiguous semantic selector is refused, nth picks one", func(t *testing.T) {
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Save")})
		assert.Equal(t, actions.CodeAmbiguous, codeOf(err), "%v", err)
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Save >> nth=1")})
		require.NoError(t, err)
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Nothing like this")})
		assert.Equal(t, actions.CodeNotFound, codeOf(err))
	})

	t.Run("refs from a snapshot", func(t *testing.T) {
		snap := f.take(t, ctx, tab, snapshot.Options{InteractiveOnly: true})
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(refOf(t, snap.Text, `button "Count"`))})
		require.NoError(t, err)
		assert.Equal(t, `clicked button "Count"`, r.Message)
		assert.Equal(t, "4", read[string](t, ctx, s, `document.getElementById('count').dataset.n`))
		_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: ref(refOf(t, snap.Text, `textbox "Full name"`)), Text: "X", Clear: true})
		require.NoError(t, err)
		assert.Equal(t, "X", val("name"))
	})
}
