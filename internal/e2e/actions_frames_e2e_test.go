//go:build linux

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

// movingFrame opens frame-moves.html with inner in its cross-site frame
// and answers the tab, its snapshot, the ref of the button that moves the
// frame, and a way to the frame's session (by the ref of something in it).
func movingFrame(t *testing.T, inner string) (f *actFixture, ctx context.Context, tab int, snap *snapshot.Result, toggle string, frameOf func(ref string) *cdp.Session) {
	f = newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	t.Cleanup(cancel)
	tab = f.page(t, ctx, "frame-moves.html?inner="+inner).TabID()
	snap = f.take(t, ctx, tab, snapshot.Options{})
	frameOf = func(ref string) *cdp.Session {
		target, err := f.snap.Resolve(ctx, tab, ref)
		require.NoError(t, err)
		require.NotEmpty(t, target.SessionID, "the cross-site frame runs out of process")
		return f.session(tab, target.SessionID).(*cdp.Session)
	}
	return f, ctx, tab, snap, refOf(t, snap.Text, `button "Details"`), frameOf
}

// A hover into an out-of-process frame right after the page moved the
// frame: Chrome routes the move by where it last drew the frame, so it
// lands on another item of the frame's menu (the wrong menu opens) while
// both renderers' hit tests say the aimed item is there. Every answer must
// be true: "hovered over" only when the aimed item is under the pointer
// (its menu open), and hover_missed only when it is not.
func TestE2EActionHoverIntoAMovedFrame(t *testing.T) {
	f, ctx, tab, snap, toggle, frameOf := movingFrame(t, "frame-menu.html")
	items := map[string]string{"File": refOf(t, snap.Text, `button "File"`), "Go": refOf(t, snap.Text, `button "Go"`)}
	cs := frameOf(items["File"])
	under := func() string {
		return read[string](t, ctx, cs, `[...document.querySelectorAll(':hover')].pop()?.textContent || ''`)
	}

	landed := 0
	hover := func(item, when string) {
		t.Helper()
		r, err := f.eng.Hover(ctx, tab, actions.HoverArgs{Target: ref(items[item])})
		if err != nil {
			assert.Equal(t, "hover_missed", codeOf(err), "%s: %v", when, err)
			assert.NotEqual(t, item, under(), "%s: hover_missed, yet the pointer is on %s", when, item)
			t.Logf("%s: %v", when, err)
			return
		}
		landed++
		assert.Equal(t, fmt.Sprintf(`hovered over button %q`, item), r.Message, when)
		assert.Equal(t, item, under(), "%s: answered hovered, so the pointer is on %s", when, item)
		assert.Equal(t, item+" menu open", read[string](t, ctx, cs, `document.getElementById('open').textContent`), when)
		t.Logf("%s: %s in %d ms", when, r.Message, r.ElapsedMS)
	}
	// Opening the details moves the frame 90 px down: a move routed by
	// its old place lands 90 px lower in it (File -> Go); closing moves it
	// back up (Go -> File).
	for i := range 4 {
		hover("File", fmt.Sprintf("round %d, frame still", i))
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(toggle)})
		require.NoError(t, err)
		hover("File", fmt.Sprintf("round %d, frame just moved down", i))
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(toggle)})
		require.NoError(t, err)
		hover("Go", fmt.Sprintf("round %d, frame just moved up", i))
	}
	assert.Positive(t, landed, "hovers into the frame land")
}

// A frame whose page takes every press at its window first (its own
// capture listeners, registered as it loaded, act on a click on Save and
// stop the events before any of Gasoline's listeners sees them). The
// click did happen: it must never be answered as one that did not reach
// the page (an agent would click again: a double save), and a click the
// engine answers as done is counted once.
func TestE2EActionClickIntoAFrameThatTakesThePress(t *testing.T) {
	f, ctx, tab, snap, toggle, frameOf := movingFrame(t, "frame-swallow.html")
	save := refOf(t, snap.Text, `button "Save"`)
	cs := frameOf(save)
	saves := func() int { return read[int](t, ctx, cs, `+document.getElementById('saves').textContent`) }

	r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(save)})
	require.NoError(t, err, "the press landed on Save and the page saved: the click happened")
	assert.Equal(t, `clicked button "Save"`, r.Message)
	assert.Equal(t, 1, saves(), "saved once")

	// Right after the frame moved, a press may land elsewhere in the frame,
	// where the page takes it before Gasoline can stop it: the answer may
	// be "clicked", an error saying it may have clicked, or click_missed
	// only when the page saw nothing.
	for i := range 4 {
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(toggle)})
		require.NoError(t, err)
		when := fmt.Sprintf("round %d, frame just moved", i)
		before := saves()
		r, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(save)})
		switch code := codeOf(err); {
		case err == nil:
			assert.Equal(t, before+1, saves(), "%s: answered clicked (%s), so saved once more", when, r.Message)
		case code == "click_missed":
			assert.Equal(t, before, saves(), "%s: click_missed, so nothing was saved: %v", when, err)
			assert.NotContains(t, err.Error(), "may have", when)
		case code == "click_unconfirmed":
			assert.Contains(t, err.Error(), "may have", when)
			assert.LessOrEqual(t, saves(), before+1, when)
		default:
			t.Errorf("%s: %v", when, err)
		}
		if err == nil {
			t.Logf("%s: %s (saves %d -> %d)", when, r.Message, before, saves())
		} else {
			t.Logf("%s: %v (saves %d -> %d)", when, err, before, saves())
		}
	}
}
