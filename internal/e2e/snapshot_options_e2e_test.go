package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

func TestE2ESnapshotOptions(t *testing.T) {
	f := newSnapFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.open(t, ctx, f.c.PageURL("pages/large.html"))
	tabID := s.TabID()
	full, err := f.snap.Take(ctx, tabID, snapshot.Options{})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(full.Text, "\n"), "\n")
	require.Len(t, lines, full.Nodes)
	t.Logf("large: %d bytes, %d lines, %d refs", len(full.Text), full.Nodes, full.Refs)
	assert.NotContains(t, full.Text, "Edit order", "the hidden dialog is left out")
	assert.NotContains(t, full.Text, "Open the order", "closed <details> content is left out")
	assert.Contains(t, full.Text, `row: #10400 | link "`)

	t.Run("interactive_only", func(t *testing.T) {
		r, err := f.snap.Take(ctx, tabID, snapshot.Options{InteractiveOnly: true})
		require.NoError(t, err)
		t.Logf("interactive: %d bytes, %d lines", len(r.Text), r.Nodes)
		assert.Less(t, len(r.Text), len(full.Text)/2)
		for l := range strings.SplitSeq(strings.TrimSuffix(r.Text, "\n"), "\n") {
			if !strings.HasPrefix(l, "heading ") {
				assert.Regexp(t, refRE, l)
			}
			assert.NotRegexp(t, `^\s*(row|paragraph|text|list|listitem|cell)\b`, l)
		}
		assert.Contains(t, r.Text, `link "Dashboard" [`)
		assert.Contains(t, r.Text, `button "Add to cart" [`)
	})

	t.Run("limit", func(t *testing.T) {
		r, err := f.snap.Take(ctx, tabID, snapshot.Options{Limit: 50})
		require.NoError(t, err)
		got := strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n")
		require.Len(t, got, 51)
		assert.Equal(t, lines[:50], got[:50])
		assert.Equal(t, fmt.Sprintf("… %d more nodes; pass limit=%d or a ref as root", full.Nodes-50, full.Nodes), got[50])
		// Refs past the cut are issued too: a later root snapshot or action may use them.
		_, err = f.snap.Resolve(ctx, tabID, refOf(t, full.Text, `link "Community link 10"`))
		require.NoError(t, err)
	})

	t.Run("depth", func(t *testing.T) {
		r, err := f.snap.Take(ctx, tabID, snapshot.Options{Depth: 1})
		require.NoError(t, err)
		assert.Equal(t, "banner\ncomplementary\nmain\ncontentinfo\n", r.Text[:strings.Index(r.Text, "…")])
		assert.Contains(t, r.Text, "nodes deeper than depth 1 not shown; pass a larger depth or a ref as root")
	})

	t.Run("root", func(t *testing.T) {
		nav := refOf(t, full.Text, `navigation "Primary"`)
		gen := f.snap.Generation(tabID)
		r, err := f.snap.Take(ctx, tabID, snapshot.Options{Root: nav})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(r.Text, `navigation "Primary" [`+nav+`]`), r.Text)
		assert.Equal(t, 14, r.Nodes, r.Text) // navigation, list, 12 links
		assert.Equal(t, gen, r.Generation, "a subtree snapshot keeps the generation")

		r, err = f.snap.Take(ctx, tabID, snapshot.Options{Root: "table.orders"})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(r.Text, `table "Orders from the last 30 days" [`), r.Text[:80])
		// Refs outside the subtree stay valid.
		_, err = f.snap.Resolve(ctx, tabID, refOf(t, full.Text, `button "Subscribe"`))
		require.NoError(t, err)

		_, err = f.snap.Take(ctx, tabID, snapshot.Options{Root: "#no-such-thing"})
		assert.ErrorContains(t, err, "no element matches the root selector")
	})
}
