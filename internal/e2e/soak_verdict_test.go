//go:build linux

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// soakSeries is an hour of 10-second samples: a live heap of 22 MiB and a
// resident set rss(t), with a store of 100 entries under its cap.
func soakSeries(rss func(at time.Duration) float64) []soakSample {
	var out []soakSample
	for at := time.Duration(0); at <= time.Hour; at += 10 * time.Second {
		out = append(out, soakSample{at: at, rss: int64(rss(at) * mib), ok: true, rep: memory.Report{
			Runtime: memory.Runtime{HeapLive: 22 * mib},
			Stores:  []memory.Store{{Name: "capture.network", Len: 100, Cap: 4000}},
		}})
	}
	return out
}

// TestSoakVerdict: the verdict tells a resident set that holds still
// (with the once-a-minute release's dips caught by some samples and not
// others) from one that creeps.
func TestSoakVerdict(t *testing.T) {
	wobble := func(at time.Duration) float64 { return float64(at/(10*time.Second)%7) * 0.3 } // 0–1.8 MiB
	flat := soakSeries(func(at time.Duration) float64 {
		v := 68 + wobble(at)
		if at > 20*time.Minute && at < 25*time.Minute && at%time.Minute == 0 {
			v = 51 // a sample that fell just after a release
		}
		return v
	})
	v := soakVerdict(flat)
	assert.True(t, strings.HasPrefix(v, "verdict: FLAT"), v)
	assert.Contains(t, v, "single lowest samples 68.0 / 51.0 / 68.0", v)

	creep := soakSeries(func(at time.Duration) float64 { return 60 + at.Minutes()/4 + wobble(at) }) // +5 MiB a third
	v = soakVerdict(creep)
	assert.True(t, strings.HasPrefix(v, "verdict: GROWING"), v)
	assert.Contains(t, v, "more than 1% above", v)

	over := soakSeries(func(time.Duration) float64 { return 68 })
	for i := range over {
		over[i].rep.Stores = []memory.Store{{Name: "capture.network", Len: 4001, Cap: 4000}}
	}
	v = soakVerdict(over)
	assert.True(t, strings.HasPrefix(v, "verdict: GROWING"), v)
	assert.Contains(t, v, "capture.network 4001/4000", v)
}
