package snapshot

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRef(t *testing.T) {
	for in, want := range map[string]int{"e12": 12, "ref=e3": 3, "[ref=e7]": 7, "[e8]": 8, " e1 ": 1} {
		n, ok := parseRef(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, n, in)
	}
	for _, in := range []string{"", "e", "e0", "e-1", "12", "button", "#e12", "e12a"} {
		_, ok := parseRef(in)
		assert.False(t, ok, in)
	}
	assert.True(t, IsRef("e5"))
	assert.False(t, IsRef("div.e5"))
}

func TestOldRefsAreForgottenButStillStale(t *testing.T) {
	tr := newTabRefs()
	tr.commit([]*entry{{n: 1, desc: `button "Old"`, gen: 1}}, 1, 2)
	for gen := 2; gen <= keepGenerations+1; gen++ {
		tr.commit(nil, gen, 2)
	}
	_, err := tr.lookup("e1", 0)
	assert.EqualError(t, err, `ref e1 (button "Old") is stale: the page changed since snapshot 1; take a new snapshot`)

	tr.commit(nil, keepGenerations+2, 2)
	_, err = tr.lookup("e1", 0)
	assert.EqualError(t, err, "ref e1 is unknown: it is from a snapshot older than 20 generations; take a new snapshot")
	_, err = tr.lookup("e2", 0)
	assert.EqualError(t, err, "ref e2 is unknown: no snapshot of this tab issued it; take a new snapshot")
}

func TestInvalidateNeverWaitsAndRaces(t *testing.T) {
	ctx := context.Background()
	f := newFakeTab()
	f.records[""] = rec(`0|button|Save||1|`)
	f.backend[1] = 101
	s := newTestSnapshotter(f)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				switch i {
				case 0:
					s.Invalidate(tabID)
				case 1:
					_, _ = s.Resolve(ctx, tabID, "e1")
				default:
					_, _ = s.Take(ctx, tabID, Options{})
				}
			}
		}()
	}
	wg.Wait()
	_, err := s.Take(ctx, tabID, Options{})
	require.NoError(t, err)
	_, err = s.Resolve(ctx, tabID, "e1")
	require.NoError(t, err)
	s.Forget(tabID)
	assert.Equal(t, 0, s.Generation(tabID))
}
