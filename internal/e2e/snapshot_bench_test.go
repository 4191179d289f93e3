package e2e

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
)

// BenchmarkE2ESnapshotLarge: a full snapshot of the ~3,000-element page
// through the whole chain (daemon → host → extension → chrome.debugger →
// walker in the isolated world → back), with one-shot figures for the
// alternatives measured on the same page and the same relay.
func BenchmarkE2ESnapshotLarge(b *testing.B) {
	benchSnapshot(b, "pages/large.html", snapshot.Options{}, true)
}

// BenchmarkE2ESnapshotLargeInteractive: the same page, interactive_only.
func BenchmarkE2ESnapshotLargeInteractive(b *testing.B) {
	benchSnapshot(b, "pages/large.html", snapshot.Options{InteractiveOnly: true}, false)
}

// BenchmarkE2ESnapshotForm: the small form page.
func BenchmarkE2ESnapshotForm(b *testing.B) {
	benchSnapshot(b, "pages/form.html", snapshot.Options{}, false)
}

func benchSnapshot(b *testing.B, path string, o snapshot.Options, compare bool) {
	f := newSnapFixture(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s := f.open(b, ctx, f.c.PageURL(path))
	var alt []metric
	if compare {
		alt = compareAlternatives(b, ctx, s)
	}
	var r *snapshot.Result
	take := func() (err error) {
		r, err = f.snap.Take(ctx, s.TabID(), o)
		return err
	}
	for range 5 { // warm-up: world creation, V8 compiling the walker
		if err := take(); err != nil {
			b.Fatal(err)
		}
	}
	var lat, inPage latencies
	b.ResetTimer()
	for b.Loop() {
		if err := lat.time(take); err != nil {
			b.Fatal(err)
		}
		inPage = append(inPage, time.Duration(r.PageMS*float64(time.Millisecond)))
	}
	b.StopTimer()
	lat.report(b)
	for _, m := range alt { // reported after the loop: ResetTimer clears metrics
		b.ReportMetric(m.v, m.unit)
	}
	b.ReportMetric(float64(len(r.Text)), "bytes")
	b.ReportMetric(float64(len(r.Text)/4), "~tokens")
	b.ReportMetric(float64(r.Refs), "refs")
	b.ReportMetric(median(inPage), "walker-p50-ms")

	var res latencies
	for i := range min(r.Refs, 50) {
		ref := "e" + strconv.Itoa(i+1)
		if err := res.time(func() error { _, err := f.snap.Resolve(ctx, s.TabID(), ref); return err }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(median(res), "resolve-p50-ms")
}

type metric struct {
	v    float64
	unit string
}

// compareAlternatives measures once the time and size of the CDP-side
// ways to get the same information, through the same relay.
func compareAlternatives(b *testing.B, ctx context.Context, s *cdp.Session) []metric {
	var out []metric
	for _, c := range []struct {
		name, method string
		params       any
	}{
		{"axtree", "Accessibility.getFullAXTree", map[string]any{}},
		{"domsnapshot", "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{"display", "visibility"}}},
		{"getdocument", "DOM.getDocument", map[string]any{"depth": -1, "pierce": true}},
		// Eager ref mapping: every control's backendNodeId in one call
		// (deep serialization), instead of resolving a ref when it is used.
		{"eagerrefs", "Runtime.evaluate", map[string]any{
			"expression":           "Array.from(document.querySelectorAll('a[href],button,input,select,textarea,summary,[tabindex]'))",
			"serializationOptions": map[string]any{"serialization": "deep", "maxDepth": 1},
		}},
	} {
		var v jsonv2.Value
		start := time.Now()
		if err := s.Call(ctx, c.method, c.params, &v); err != nil {
			b.Fatalf("%s: %v", c.method, err)
		}
		out = append(out, metric{float64(time.Since(start).Microseconds()) / 1000, c.name + "-ms"}, metric{float64(len(v)), c.name + "-bytes"})
	}
	return out
}

func median(l latencies) float64 {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
