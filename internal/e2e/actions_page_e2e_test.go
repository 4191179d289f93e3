package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

func TestE2EActionSPAStaleRefs(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "spa.html")
	tab := s.TabID()
	snap := f.take(t, ctx, tab, snapshot.Options{})
	hello := refOf(t, snap.Text, `button "Say hello"`)

	r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(refOf(t, snap.Text, `link "Settings"`))})
	require.NoError(t, err)
	t.Log(r.Text())
	require.NotNil(t, r.Changes.URL, "a pushState route change shows in the answer")
	assert.Contains(t, r.Changes.URL.To, "#settings")
	assert.Equal(t, &actions.Delta{From: "Actions: SPA home", To: "Actions: SPA settings"}, r.Changes.Title)
	assert.False(t, r.Changes.Navigated, "a route change is not a new document")
	assert.Equal(t, "Settings", read[string](t, ctx, s, `document.querySelector('h1').textContent`))

	_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(hello)})
	require.Error(t, err, "the old view's button is gone")
	assert.Equal(t, actions.CodeStaleRef, codeOf(err))
	assert.Contains(t, err.Error(), `(button "Say hello") is stale`)
	assert.Contains(t, err.Error(), "take a new snapshot")

	snap = f.take(t, ctx, tab, snapshot.Options{})
	_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: ref(refOf(t, snap.Text, `textbox "Nickname"`)), Text: "ada"})
	require.NoError(t, err)
	r, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel(`role=button[name="Apply"]`)})
	require.NoError(t, err)
	assert.Equal(t, "Actions: saved ada", read[string](t, ctx, s, `document.title`))
	assert.Equal(t, "Actions: saved ada", r.Changes.Title.To)

	t.Run("a followed link answers with where it went", func(t *testing.T) {
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("text=Order form")})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.True(t, r.Changes.Navigated)
		require.NotNil(t, r.Changes.URL)
		assert.Contains(t, r.Changes.URL.To, "/pages/actions/form.html")
		assert.Contains(t, read[string](t, ctx, s, `location.pathname`), "form.html")
		_, err = f.eng.Back(ctx, tab, actions.HistoryArgs{})
		require.NoError(t, err)
		assert.Contains(t, read[string](t, ctx, s, `location.href`), "spa.html")
	})

	t.Run("a full navigation makes every ref stale", func(t *testing.T) {
		snap := f.take(t, ctx, tab, snapshot.Options{})
		apply := refOf(t, snap.Text, `button "Apply"`)
		r, err := f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `location.href = '/pages/actions/form.html'`})
		require.NoError(t, err)
		t.Log(r.Text())
		r, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{URL: "*/form.html"})
		require.NoError(t, err, "wait_for url follows the navigation")
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(apply)})
		assert.Equal(t, actions.CodeStaleRef, codeOf(err), "%v", err)
		assert.Contains(t, err.Error(), `(button "Apply") is stale: the tab navigated`)
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#count")})
		require.NoError(t, err, "the engine finds its way in the new document")
		assert.Equal(t, "1", read[string](t, ctx, s, `document.getElementById('count').dataset.n`))
		r, err = f.eng.Back(ctx, tab, actions.HistoryArgs{})
		require.NoError(t, err)
		t.Log(r.Text())
		assert.Contains(t, read[string](t, ctx, s, `location.href`), "spa.html")
	})
}

func TestE2EActionFramesAndShadow(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "frames.html")
	tab := s.TabID()
	require.Eventually(t, func() bool {
		return read[bool](t, ctx, s, `document.getElementById('outer').contentDocument?.getElementById('inner')?.contentDocument?.readyState === 'complete'`)
	}, 10*time.Second, 50*time.Millisecond)
	snap := f.take(t, ctx, tab, snapshot.Options{})
	t.Logf("frames:\n%s", snap.Text)
	inner := `document.getElementById('outer').contentDocument.getElementById('inner').contentDocument`

	t.Run("nested same-origin frames by ref and by frame selector", func(t *testing.T) {
		nested := section(snap.Text, `iframe "Inner frame"`)
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(refOf(t, nested, `button "Frame button (nested)"`))})
		require.NoError(t, err)
		assert.Equal(t, "1", read[string](t, ctx, s, inner+`.getElementById('btn').dataset.clicks`))
		_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: ref(refOf(t, nested, `textbox "Frame input"`)), Text: "deep"})
		require.NoError(t, err)
		assert.Equal(t, "deep", read[string](t, ctx, s, inner+`.getElementById('field').value`))
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: actions.Target{Selector: "text=Outer button", Frame: "#outer"}})
		require.NoError(t, err)
		assert.Equal(t, "yes", read[string](t, ctx, s, `document.getElementById('outer').contentDocument.getElementById('outer-btn').dataset.clicked`))
	})

	t.Run("an out-of-process frame by ref and by frame name", func(t *testing.T) {
		cross := section(snap.Text, `iframe "Cross site frame"`)
		target, err := f.snap.Resolve(ctx, tab, refOf(t, cross, `button "Frame button (cross)"`))
		require.NoError(t, err)
		require.NotEmpty(t, target.SessionID, "the cross-site frame runs out of process")
		cs := f.session(tab, target.SessionID).(*cdp.Session)
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(refOf(t, cross, `button "Frame button (cross)"`))})
		require.NoError(t, err)
		t.Log(r.Text())
		r, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: actions.Target{Selector: "#btn", Frame: "cross"}})
		require.NoError(t, err)
		_, err = f.eng.Type(ctx, tab, actions.TypeArgs{Target: actions.Target{Selector: "label=Frame input", Frame: "cross"}, Text: "far"})
		require.NoError(t, err)
		assert.Equal(t, "2", read[string](t, ctx, cs, `document.getElementById('btn').dataset.clicks`), "both clicks landed in the out-of-process frame")
		assert.Equal(t, "far", read[string](t, ctx, cs, `document.getElementById('field').value`))
		r, err = f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `[document.getElementById('btn').dataset.clicks, document.getElementById('field').value, location.hostname]`, Frame: "#cross"})
		require.NoError(t, err)
		got := r.Value.([]any)
		assert.Equal(t, "2", got[0], "both clicks landed in the out-of-process frame")
		assert.Equal(t, "far", got[1])
		assert.NotEqual(t, read[string](t, ctx, s, `location.hostname`), got[2])
	})

	t.Run("open shadow DOM by CSS and label", func(t *testing.T) {
		sh := f.page(t, ctx, "shadow.html")
		_, err := f.eng.Type(ctx, sh.TabID(), actions.TypeArgs{Target: sel("label=Shadow name"), Text: "Ada"})
		require.NoError(t, err)
		r, err := f.eng.Click(ctx, sh.TabID(), actions.ClickArgs{Target: sel("#sbtn")})
		require.NoError(t, err)
		assert.Equal(t, `clicked button "Shadow save"`, r.Message)
		assert.Equal(t, "saved Ada true", read[string](t, ctx, sh, `document.querySelector('x-widget').shadowRoot.getElementById('sout').textContent`))
	})
}

// A click into an out-of-process frame right after the page moved the
// frame: Chrome routes the press by where it last drew the frame (a
// background tab draws about once a second), so it lands at the old place
// while both renderers' hit tests say the button is there. Every answer
// must be true: "clicked" only when the button counted the click, and a
// click_missed error only when it did not.
func TestE2EActionClickIntoAMovedFrame(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	s := f.page(t, ctx, "frame-moves.html")
	tab := s.TabID()
	snap := f.take(t, ctx, tab, snapshot.Options{})
	btn := refOf(t, snap.Text, `button "Frame button (cross)"`)
	toggle := refOf(t, snap.Text, `button "Details"`)
	target, err := f.snap.Resolve(ctx, tab, btn)
	require.NoError(t, err)
	require.NotEmpty(t, target.SessionID, "the cross-site frame runs out of process")
	cs := f.session(tab, target.SessionID).(*cdp.Session)
	counted := func() int {
		return read[int](t, ctx, cs, `+(document.getElementById('btn').dataset.clicks || 0)`)
	}

	landed := 0
	clickFrame := func(when string) {
		t.Helper()
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(btn)})
		if err != nil {
			assert.Equal(t, actions.CodeClickMissed, codeOf(err), "%s: %v", when, err)
			t.Logf("%s: %v", when, err)
		} else {
			landed++
			assert.Equal(t, `clicked button "Frame button (cross)"`, r.Message, when)
			t.Logf("%s: %s in %d ms", when, r.Message, r.ElapsedMS)
		}
		assert.Equal(t, landed, counted(), "%s: the frame counted every click the engine answered as done, and no other", when)
	}
	for i := range 4 {
		clickFrame(fmt.Sprintf("round %d, frame still since the last click", i))
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(toggle)})
		require.NoError(t, err)
		clickFrame(fmt.Sprintf("round %d, frame just moved", i))
	}
	assert.Positive(t, landed, "clicks into the frame land")
}

// TestE2EActionClickIntoAFrameBelowTheFold: an element of a cross-site
// frame that lies below the tab's viewport is clicked after the page
// around the frame is scrolled to it (the frame cannot scroll its parent,
// and a point outside the viewport hits nothing).
func TestE2EActionClickIntoAFrameBelowTheFold(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "frame-below.html")
	tab := s.TabID()
	require.Eventually(t, func() bool {
		return read[string](t, ctx, s, `document.getElementById('cross').dataset.loaded || ''`) == "1"
	}, 20*time.Second, 50*time.Millisecond, "the cross-site frame loaded")
	snap := f.take(t, ctx, tab, snapshot.Options{})
	btn := refOf(t, snap.Text, `button "Frame button (cross)"`)
	target, err := f.snap.Resolve(ctx, tab, btn)
	require.NoError(t, err)
	require.NotEmpty(t, target.SessionID, "the cross-site frame runs out of process")
	cs := f.session(tab, target.SessionID).(*cdp.Session)
	require.Zero(t, read[float64](t, ctx, s, `scrollY`), "the page starts at its top")

	r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(btn)})
	require.NoError(t, err)
	assert.Equal(t, `clicked button "Frame button (cross)"`, r.Message)
	assert.Equal(t, "1", read[string](t, ctx, cs, `document.getElementById('btn').dataset.clicks`), "the click landed in the frame")
	assert.Positive(t, read[float64](t, ctx, s, `scrollY`), "the page was scrolled to the frame")
}
