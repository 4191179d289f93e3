package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
)

func TestE2EActionDragAndDrop(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "dnd.html")
	tab := s.TabID()

	r, err := f.eng.Drag(ctx, tab, actions.DragArgs{From: sel("#card"), To: sel(`label=Done column`)})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.Contains(t, r.Message, "(HTML5 drag and drop)")
	assert.Equal(t, "target", read[string](t, ctx, s, `document.getElementById('card').parentElement.id`), "the card moved to the drop zone")

	x := read[float64](t, ctx, s, `(r => r.right - 2)(document.getElementById('slider').getBoundingClientRect())`)
	y := read[float64](t, ctx, s, `(r => r.top + r.height / 2)(document.getElementById('slider').getBoundingClientRect())`)
	r, err = f.eng.Drag(ctx, tab, actions.DragArgs{From: sel("#knob"), To: actions.Target{X: pt(x), Y: pt(y)}, Steps: 3})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.NotContains(t, r.Message, "HTML5")
	assert.Equal(t, "100", read[string](t, ctx, s, `document.getElementById('slider').dataset.value`), "the knob followed the mouse to the end")
}

func TestE2EActionKeyboard(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "keys.html")
	tab := s.TabID()
	log := func() []string { return read[[]string](t, ctx, s, `keylog.splice(0)`) }

	r, err := f.eng.KeyPress(ctx, tab, actions.KeyArgs{Keys: "Control+K"})
	require.NoError(t, err)
	assert.Equal(t, "pressed Control+k", r.Message)
	assert.Equal(t, []string{"ctrl+Control:ControlLeft:17:true", "ctrl+k:KeyK:75:true"}, log())
	assert.False(t, read[bool](t, ctx, s, `document.getElementById('palette').hidden`), "Control+K opened the palette")
	assert.Equal(t, "cmd", read[string](t, ctx, s, `document.activeElement.id`))

	_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("label=Command"), Text: "deploy"})
	require.NoError(t, err)
	log()
	_, err = f.eng.KeyPress(ctx, tab, actions.KeyArgs{Keys: "Enter"})
	require.NoError(t, err)
	assert.Equal(t, "ran deploy", read[string](t, ctx, s, `document.getElementById('log').textContent`))
	_, err = f.eng.KeyPress(ctx, tab, actions.KeyArgs{Keys: "Escape"})
	require.NoError(t, err)
	assert.True(t, read[bool](t, ctx, s, `document.getElementById('palette').hidden`))
	log()

	_, err = f.eng.KeyPress(ctx, tab, actions.KeyArgs{Target: sel("label=Second"), Keys: "Shift+Tab"})
	require.NoError(t, err)
	assert.Equal(t, "first", read[string](t, ctx, s, `document.activeElement.id`), "Shift+Tab moved focus back")
	assert.Equal(t, []string{"shift+Shift:ShiftLeft:16:true", "shift+Tab:Tab:9:true"}, log())

	_, err = f.eng.KeyPress(ctx, tab, actions.KeyArgs{Keys: "a B Shift+1 Space"})
	require.NoError(t, err)
	assert.Equal(t, "aB! ", read[string](t, ctx, s, `document.getElementById('first').value`), "keys type their characters")
	_, err = f.eng.KeyPress(ctx, tab, actions.KeyArgs{Keys: "Control+A Backspace"})
	require.NoError(t, err)
	assert.Equal(t, "", read[string](t, ctx, s, `document.getElementById('first').value`), "Control+A selected all, Backspace deleted it")

	_, err = f.eng.KeyPress(ctx, tab, actions.KeyArgs{Keys: "Control+Nope"})
	assert.Equal(t, "invalid_argument", codeOf(err))
}

func TestE2EActionScriptsAndReads(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "form.html")
	tab := s.TabID()

	for _, c := range []struct {
		script string
		want   any
	}{
		{"1+1", 2.0},
		{"document.title", "Actions: form"},
		{"({a: [1, 'x', null], b: {c: true}})", map[string]any{"a": []any{1.0, "x", nil}, "b": map[string]any{"c": true}}},
		{"Promise.resolve(7)", 7.0},
		{"new Promise(r => setTimeout(() => r('late'), 50))", "late"},
		{"undefined", nil},
		{"0/0", "NaN"},
		{"const w = window; w.x = {self: null}; w.x.self = w.x; w.x", map[string]any{"self": "[circular]"}},
		{"document.querySelector('h1')", "[<h1>Order</h1>]"},
	} {
		r, err := f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: c.script})
		require.NoError(t, err, c.script)
		assert.Equal(t, c.want, r.Value, c.script)
	}

	r, err := f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `'x'.repeat(200000)`})
	require.NoError(t, err)
	assert.True(t, r.Truncated)
	assert.Len(t, r.Value, 64<<10)
	r, err = f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `Array.from({length: 50000}, (_, i) => i)`})
	require.NoError(t, err)
	assert.True(t, r.Truncated, "big objects are cut in the page")

	_, err = f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: "\n\nnull.boom"})
	require.Error(t, err)
	assert.Equal(t, actions.CodeJSException, codeOf(err))
	assert.Contains(t, err.Error(), "TypeError: Cannot read properties of null (reading 'boom') at line 3")

	tctx, tcancel := context.WithTimeout(ctx, time.Second)
	_, err = f.eng.ExecuteJS(tctx, tab, actions.EvalArgs{Script: "for (;;) {}"})
	tcancel()
	assert.Equal(t, "timeout", codeOf(err), "%v", err)
	assert.Equal(t, "Actions: form", read[string](t, ctx, s, "document.title"), "the runaway script was terminated: the page answers again")

	t.Run("explore_page", func(t *testing.T) {
		_, err := f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `setTimeout(() => console.error('late failure'), 0); 1`})
		require.NoError(t, err)
		r, err := f.eng.ExplorePage(ctx, tab, actions.ExploreArgs{})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.Equal(t, "Actions: form", r.Page.Title)
		assert.Equal(t, "complete", r.Page.Ready)
		assert.Equal(t, 1, r.Page.Forms)
		assert.Contains(t, r.Snapshot, `button "Place order" [`)
		assert.NotContains(t, r.Snapshot, "heading \"Order\"\nparagraph", "interactive only")
		require.NotNil(t, r.Changes.Generation, "explore takes a new snapshot")
	})

	t.Run("batch runs steps in order and stops at the first failure", func(t *testing.T) {
		var steps []actions.Step
		require.NoError(t, json.Unmarshal([]byte(`[{"what":"type","selector":"#name","text":"Batch","clear":true},
			{"what":"check","selector":"#terms","checked":true},
			{"what":"select","selector":"#plan","value":"Free"},
			{"action":"get_value","selector":"#plan"}]`), &steps))
		r, err := f.eng.Batch(ctx, tab, steps)
		require.NoError(t, err)
		t.Log(r.Text())
		require.Len(t, r.Steps, 4)
		assert.Equal(t, "free", r.Steps[3].Value)
		assert.Equal(t, "Batch", read[string](t, ctx, s, `document.getElementById('name').value`))
		assert.True(t, read[bool](t, ctx, s, `document.getElementById('terms').checked`))

		r, err = f.eng.Do(ctx, tab, "batch", json.RawMessage(`{"steps":[{"what":"click","selector":"#count"},{"what":"click","selector":"#missing"},{"what":"click","selector":"#count"}]}`))
		require.Error(t, err)
		assert.Equal(t, actions.CodeNotFound, codeOf(err))
		assert.True(t, strings.HasPrefix(err.Error(), "not_found: step 2 of 3 (click) failed"), err.Error())
		assert.Equal(t, "1", read[string](t, ctx, s, `document.getElementById('count').dataset.n`), "the third step never ran")
	})
}
