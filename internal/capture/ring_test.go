package capture

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// item is a test entry whose size is set by the test.
type item struct {
	Seq   uint64
	N     int
	Bytes int
}

func (i item) Size() int               { return i.Bytes }
func (i item) WithSeq(seq uint64) item { i.Seq = seq; return i }

func seqs(items []item) []uint64 {
	var out []uint64
	for _, it := range items {
		out = append(out, it.Seq)
	}
	return out
}

func TestRingEviction(t *testing.T) {
	tests := []struct {
		name        string
		maxEntries  int
		maxBytes    int64
		sizes       []int
		wantSeqs    []uint64
		wantEvicted uint64
		wantBytes   int64
	}{
		{"under limits", 5, 100, []int{1, 2, 3}, []uint64{1, 2, 3}, 0, 6},
		{"entry limit", 3, 0, []int{1, 1, 1, 1, 1}, []uint64{3, 4, 5}, 2, 3},
		{"byte limit", 10, 10, []int{4, 4, 4}, []uint64{2, 3}, 1, 8},
		{"byte limit evicts several", 10, 10, []int{2, 2, 2, 2, 9}, []uint64{5}, 4, 9},
		{"oversize entry is evicted at once", 10, 10, []int{4, 11, 4}, []uint64{1, 3}, 1, 8},
		{"exactly at byte limit", 10, 10, []int{5, 5}, []uint64{1, 2}, 0, 10},
		{"wraps past growth", 20, 0, ones(50), seqRange(31, 50), 30, 20},
		{"zero entries means one", 0, 0, []int{1, 1}, []uint64{2}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRing[item](tt.maxEntries, tt.maxBytes)
			for i, sz := range tt.sizes {
				assert.Equal(t, uint64(i+1), r.Append(item{N: i, Bytes: sz}), "Append seq")
			}
			got, next, truncated, missed := r.Since(0, 0)
			assert.Equal(t, tt.wantSeqs, seqs(got), "kept seqs")
			assert.Equal(t, uint64(len(tt.sizes)), next, "next")
			assert.False(t, truncated, "truncated")
			assert.Equal(t, tt.wantEvicted, missed, "missed from cursor 0")
			st := r.Stats()
			assert.Equal(t, RingStats{Entries: len(tt.wantSeqs), Bytes: tt.wantBytes, Evicted: tt.wantEvicted, Last: uint64(len(tt.sizes))}, st)
			assert.Equal(t, tt.wantEvicted, r.Evicted())
			assert.Equal(t, len(tt.wantSeqs), r.Len())
		})
	}
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func seqRange(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

func TestRingSince(t *testing.T) {
	// Entries 1..8 appended to a ring of 5: 4..8 kept, 1..3 evicted.
	r := NewRing[item](5, 0)
	for i := range 8 {
		r.Append(item{N: i, Bytes: 1})
	}
	tests := []struct {
		name          string
		after         uint64
		limit         int
		want          []uint64
		wantNext      uint64
		wantTruncated bool
		wantMissed    uint64
	}{
		{"from start", 0, 0, seqRange(4, 8), 8, false, 3},
		{"evicted cursor with limit", 2, 2, []uint64{4, 5}, 5, true, 1},
		{"kept cursor", 5, 10, []uint64{6, 7, 8}, 8, false, 0},
		{"limit equals remaining", 5, 3, []uint64{6, 7, 8}, 8, false, 0},
		{"at the end", 8, 10, nil, 8, false, 0},
		{"cursor never issued restarts", 100, 0, seqRange(4, 8), 8, false, 3},
		{"cursor just before oldest", 3, 1, []uint64{4}, 4, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next, truncated, missed := r.Since(tt.after, tt.limit)
			assert.Equal(t, tt.want, seqs(got), "entries")
			assert.Equal(t, tt.wantNext, next, "next")
			assert.Equal(t, tt.wantTruncated, truncated, "truncated")
			assert.Equal(t, tt.wantMissed, missed, "missed")
		})
	}
}

func TestRingScanFilter(t *testing.T) {
	r := NewRing[item](100, 0)
	for i := 1; i <= 11; i++ {
		r.Append(item{N: i, Bytes: 1})
	}
	even := func(it item) bool { return it.N%2 == 0 }
	type call struct {
		after         uint64
		want          []uint64
		wantNext      uint64
		wantTruncated bool
	}
	// Paging by 2 through the even entries: 2 4 | 6 8 | 10, and the last
	// page ends at the newest entry (11) though it is filtered out.
	calls := []call{
		{0, []uint64{2, 4}, 4, true},
		{4, []uint64{6, 8}, 8, true},
		{8, []uint64{10}, 11, false},
		{11, nil, 11, false},
	}
	for _, c := range calls {
		got, next, truncated, missed := r.Scan(c.after, 2, even)
		assert.Equal(t, c.want, seqs(got), "after %d: entries", c.after)
		assert.Equal(t, c.wantNext, next, "after %d: next", c.after)
		assert.Equal(t, c.wantTruncated, truncated, "after %d: truncated", c.after)
		assert.Zero(t, missed, "after %d: missed", c.after)
	}
}

func TestRingMissedCountsGaps(t *testing.T) {
	// An oversize entry in the middle leaves a gap that a reader crossing
	// it is told about.
	r := NewRing[item](10, 10)
	r.Append(item{Bytes: 1})  // 1
	r.Append(item{Bytes: 50}) // 2, evicted at once
	r.Append(item{Bytes: 1})  // 3
	got, next, _, missed := r.Since(0, 0)
	assert.Equal(t, []uint64{1, 3}, seqs(got))
	assert.Equal(t, uint64(3), next)
	assert.Equal(t, uint64(1), missed)

	got, next, truncated, missed := r.Since(0, 1)
	assert.Equal(t, []uint64{1}, seqs(got))
	assert.Equal(t, uint64(1), next)
	assert.True(t, truncated)
	assert.Zero(t, missed, "the gap lies after the page")

	_, _, _, missed = r.Since(1, 5)
	assert.Equal(t, uint64(1), missed, "the gap lies inside the page")
}

func TestRingCursorSurvivesEviction(t *testing.T) {
	r := NewRing[item](100, 0)
	for range 10 {
		r.Append(item{Bytes: 1})
	}
	_, cursor, _, _ := r.Since(0, 0)
	require.Equal(t, uint64(10), cursor)
	for range 1000 {
		r.Append(item{Bytes: 1})
	}
	got, next, truncated, missed := r.Since(cursor, 10)
	assert.Equal(t, seqRange(911, 920), seqs(got))
	assert.Equal(t, uint64(920), next)
	assert.True(t, truncated)
	assert.Equal(t, uint64(900), missed, "entries 11..910 were evicted unread")
	assert.Equal(t, uint64(910), r.Evicted())
}

func TestRingConcurrent(t *testing.T) {
	const writers, perWriter = 4, 2000
	r := NewRing[item](500, 4000)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				r.Append(item{N: w, Bytes: 1 + i%16})
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			var cursor uint64
			for cursor < writers*perWriter {
				got, next, _, _ := r.Since(cursor, 50)
				for i, it := range got {
					if it.Seq <= cursor || (i > 0 && it.Seq <= got[i-1].Seq) {
						t.Errorf("seq %d out of order after cursor %d", it.Seq, cursor)
						return
					}
				}
				if next < cursor {
					t.Errorf("next %d went back from %d", next, cursor)
					return
				}
				cursor = next
			}
		})
	}
	wg.Wait()
	st := r.Stats()
	assert.Equal(t, uint64(writers*perWriter), st.Last)
	assert.Equal(t, st.Last, st.Evicted+uint64(st.Entries), "every entry is kept or evicted")
	assert.LessOrEqual(t, st.Bytes, int64(4000))
	assert.LessOrEqual(t, st.Entries, 500)
}
