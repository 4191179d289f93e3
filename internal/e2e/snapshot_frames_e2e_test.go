package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

func TestE2ESnapshotShadowDOM(t *testing.T) {
	f := newSnapFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.open(t, ctx, f.c.PageURL("pages/shadow.html"))
	r, err := f.snap.Take(ctx, s.TabID(), snapshot.Options{})
	require.NoError(t, err)
	t.Logf("shadow snapshot:\n%s", r.Text)
	for _, want := range []string{
		`region "Card" [`,
		` heading "Card title" [level=2] [`,
		` button "Shadow button" [`,
		` link "Slotted light link" [`,
		` checkbox "Nested shadow option" [`,
	} {
		assert.Contains(t, r.Text, want)
	}
	assert.NotContains(t, r.Text, "Closed shadow button", "closed shadow roots are not reachable from page script")

	for prefix, id := range map[string]string{`button "Shadow button"`: "inside", `checkbox "Nested shadow option"`: "deep"} {
		target, err := f.snap.Resolve(ctx, s.TabID(), refOf(t, r.Text, prefix))
		require.NoError(t, err)
		assert.Equal(t, id, attrOf(describe(t, ctx, s, target.BackendNodeID), "id"))
	}
}

func TestE2ESnapshotFrames(t *testing.T) {
	f := newSnapFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.open(t, ctx, f.c.PageURL("pages/frames.html"))
	r, err := f.snap.Take(ctx, s.TabID(), snapshot.Options{})
	require.NoError(t, err)
	t.Logf("frames snapshot:\n%s", r.Text)

	same := section(r.Text, `iframe "Same origin frame"`)
	assert.Contains(t, same, ` heading "Inside the frame" [level=2] [`)
	assert.Contains(t, same, ` textbox "Frame input" [`)
	assert.Contains(t, same, ` button "Frame button (same)" [`)
	cross := section(r.Text, `iframe "Cross site frame"`)
	assert.Contains(t, cross, ` button "Frame button (cross)" [`)
	assert.Contains(t, cross, ` textbox "Frame input" [`)

	t.Run("refs resolve inside each frame", func(t *testing.T) {
		target, err := f.snap.Resolve(ctx, s.TabID(), refOf(t, same, `button "Frame button (same)"`))
		require.NoError(t, err)
		assert.Equal(t, "frame-button", attrOf(describe(t, ctx, s, target.BackendNodeID), "id"))

		target, err = f.snap.Resolve(ctx, s.TabID(), refOf(t, cross, `button "Frame button (cross)"`))
		require.NoError(t, err)
		assert.NotEmpty(t, target.SessionID, "the cross-site frame is out of process: its node lives in a child session")
		n := describe(t, ctx, f.session(s.TabID(), target.SessionID), target.BackendNodeID)
		assert.Equal(t, "frame-button", attrOf(n, "id"))
	})

	t.Run("frame option snapshots one frame", func(t *testing.T) {
		for _, spec := range []string{"#cross", refOf(t, r.Text, `iframe "Cross site frame"`)} {
			fr, err := f.snap.Take(ctx, s.TabID(), snapshot.Options{Frame: spec})
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(fr.Text, `heading "Inside the frame"`), "frame %s:\n%s", spec, fr.Text)
			assert.Contains(t, fr.Text, `button "Frame button (cross)" [`)
			assert.NotContains(t, fr.Text, "Top button")
		}
		// A frame snapshot keeps the rest of the page's refs valid.
		_, err := f.snap.Resolve(ctx, s.TabID(), refOf(t, r.Text, `button "Top button"`))
		require.NoError(t, err)
	})
}

// section returns the line starting with prefix (after indentation) and
// the lines indented under it.
func section(text, prefix string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(trimmed, prefix) {
			continue
		}
		indent := len(l) - len(trimmed)
		out := []string{trimmed}
		for _, k := range lines[i+1:] {
			kt := strings.TrimLeft(k, " ")
			if len(k)-len(kt) <= indent {
				break
			}
			out = append(out, k[indent:])
		}
		return strings.Join(out, "\n")
	}
	return ""
}
