package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
)

func TestE2EActionCovered(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "covered.html")
	tab := s.TabID()

	_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Buy now")})
	require.Error(t, err)
	assert.Equal(t, actions.CodeCovered, codeOf(err))
	assert.Contains(t, err.Error(), `button "Buy now" is covered by div "cookie-banner"`)
	assert.Contains(t, err.Error(), "close or dismiss what covers it")
	assert.Empty(t, read[string](t, ctx, s, `document.getElementById('buy').dataset.clicked || ''`), "a covered button is never clicked")

	_, err = f.eng.Hover(ctx, tab, actions.HoverArgs{Target: sel("#buy")})
	assert.Equal(t, actions.CodeCovered, codeOf(err), "hover checks too")

	r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel(`role=button[name="Accept"]`)})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.False(t, read[bool](t, ctx, s, `!!document.getElementById('cookie-banner')`))
	_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Buy now")})
	require.NoError(t, err)
	assert.Equal(t, "yes", read[string](t, ctx, s, `document.getElementById('buy').dataset.clicked`))

	t.Run("hover, focus and scroll_to", func(t *testing.T) {
		r, err := f.eng.Hover(ctx, tab, actions.HoverArgs{Target: sel("#buy")})
		require.NoError(t, err)
		assert.Equal(t, `hovered over button "Buy now"`, r.Message)
		assert.Equal(t, "yes", read[string](t, ctx, s, `document.getElementById('buy').dataset.moved`), "the mouse moved over the button")
		assert.True(t, read[bool](t, ctx, s, `document.getElementById('buy').matches(':hover')`))

		_, err = f.eng.ScrollTo(ctx, tab, actions.ScrollArgs{Target: sel("#footer")})
		require.NoError(t, err)
		assert.True(t, read[bool](t, ctx, s, `(r => r.top >= 0 && r.bottom <= innerHeight)(document.getElementById('footer').getBoundingClientRect())`))
		_, err = f.eng.Focus(ctx, tab, actions.FocusArgs{Target: sel("#footer")})
		require.NoError(t, err)
		assert.Equal(t, "footer", read[string](t, ctx, s, `document.activeElement.id`))
		r, err = f.eng.ScrollTo(ctx, tab, actions.ScrollArgs{Target: actions.Target{X: pt(0), Y: pt(0)}})
		require.NoError(t, err)
		assert.Equal(t, 0.0, read[float64](t, ctx, s, `scrollY`))
	})

	t.Run("a click at a point", func(t *testing.T) {
		x := read[float64](t, ctx, s, `(r => r.left + r.width / 2)(document.getElementById('buy').getBoundingClientRect())`)
		y := read[float64](t, ctx, s, `(r => r.top + r.height / 2)(document.getElementById('buy').getBoundingClientRect())`)
		_, err = f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `document.getElementById('buy').dataset.clicked = ''`})
		require.NoError(t, err)
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: actions.Target{X: pt(x), Y: pt(y)}})
		require.NoError(t, err)
		assert.Contains(t, r.Message, `clicked button "buy" at`)
		assert.Equal(t, "yes", read[string](t, ctx, s, `document.getElementById('buy').dataset.clicked`))
	})
}

func TestE2EActionDialogs(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "dialogs.html")
	tab := s.TabID()
	out := func() string { return read[string](t, ctx, s, `document.getElementById('out').textContent`) }

	_, err := f.eng.HandleDialog(ctx, tab, actions.DialogArgs{Accept: true})
	assert.Equal(t, actions.CodeNoDialog, codeOf(err), "no dialog open yet")

	r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Confirm")})
	require.NoError(t, err, "a click that opens a dialog answers at once")
	t.Log(r.Text())
	require.Len(t, r.Changes.Dialogs, 1)
	assert.Equal(t, actions.DialogInfo{Type: "confirm", Message: "Delete it?", Open: true}, r.Changes.Dialogs[0])

	_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Alert")})
	assert.Equal(t, actions.CodeDialogOpen, codeOf(err), "nothing else runs while a dialog blocks the page")

	r, err = f.eng.HandleDialog(ctx, tab, actions.DialogArgs{Accept: false})
	require.NoError(t, err)
	assert.Equal(t, `dismissed the confirm dialog "Delete it?"`, r.Message)
	assert.Equal(t, "confirm: false", out())

	_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#prompt")})
	require.NoError(t, err)
	_, err = f.eng.HandleDialog(ctx, tab, actions.DialogArgs{Accept: true, PromptText: "Ada"})
	require.NoError(t, err)
	assert.Equal(t, "prompt: Ada", out())

	r, err = f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `alert('from a script'); 42`})
	require.NoError(t, err, "a script that opens a dialog answers at once too")
	assert.Equal(t, "alert", r.Changes.Dialogs[0].Type)
	_, err = f.eng.HandleDialog(ctx, tab, actions.DialogArgs{Accept: true})
	require.NoError(t, err)

	_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#alert")})
	require.NoError(t, err)
	_, err = f.eng.HandleDialog(ctx, tab, actions.DialogArgs{Accept: true})
	require.NoError(t, err)
	assert.Equal(t, "alert closed", out())
}
