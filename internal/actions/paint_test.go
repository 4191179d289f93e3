package actions

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// screencastAround reports whether calls start the tab's screencast
// before the first of method and stop it after the last.
func screencastAround(calls []string, method string) bool {
	start := slices.Index(calls, "Page.startScreencast")
	first := slices.Index(calls, method)
	last := -1
	for i, c := range calls {
		if c == method {
			last = i
		}
	}
	stop := slices.Index(calls, "Page.stopScreencast")
	return start >= 0 && first > start && stop > last
}

// TestPointerWaitsHoldTheTabPainting: the steps that wait for a drawn
// frame (a mouse move, a frame click retried after the next frame) hold
// the agent's background tab painting while the action runs, once, and
// let go when it ends; a click that waits for no frame never does.
func TestPointerWaitsHoldTheTabPainting(t *testing.T) {
	always := func(where string) func(int) string { return func(int) string { return where } }

	t.Run("hover", func(t *testing.T) {
		e, link := (&oopifBrowser{route: always("nowhere"), main: true}).engine(t)
		_, err := e.Hover(t.Context(), 7, HoverArgs{Target: Target{Selector: "#go"}})
		require.NoError(t, err)
		assert.True(t, screencastAround(link.Calls(), "Input.dispatchMouseEvent"), "%v", link.Calls())
		assert.Equal(t, 1, link.Count("Page.startScreencast"))
		assert.Equal(t, 1, link.Count("Page.stopScreencast"))
	})

	t.Run("a frame click retried after the next frame", func(t *testing.T) {
		b := &oopifBrowser{route: func(try int) string { return map[bool]string{true: "parent", false: "frame"}[try == 1] }}
		e, link := b.engine(t)
		_, err := e.Click(t.Context(), 7, ClickArgs{Target: Target{Selector: "#go", Frame: crossFrame}})
		require.NoError(t, err)
		calls := link.Calls()
		assert.Equal(t, 1, link.Count("Page.startScreencast"), "held once, for the retry: %v", calls)
		assert.Equal(t, 1, link.Count("Page.stopScreencast"))
		start := slices.Index(calls, "Page.startScreencast")
		assert.Less(t, slices.Index(calls, "Input.dispatchMouseEvent"), start, "the first press waits for nothing")
	})

	t.Run("a main-frame click", func(t *testing.T) {
		e, link := (&oopifBrowser{route: always("nowhere"), main: true}).engine(t)
		_, err := e.Click(t.Context(), 7, ClickArgs{Target: Target{Selector: "#go"}})
		require.NoError(t, err)
		assert.Zero(t, link.Count("Page.startScreencast"), "%v", link.Calls())
	})
}
