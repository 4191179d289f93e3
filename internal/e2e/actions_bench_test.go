package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/actions"
)

// BenchmarkE2EActionClick: a trusted click through the whole chain on the
// small form page: resolve a CSS selector, scroll/measure, hit-test, move,
// press, release, and the url/title probes of the answer. Target: p50 ≤ 20 ms.
func BenchmarkE2EActionClick(b *testing.B) {
	benchAction(b, func(ctx context.Context, f *actFixture, tab int) error {
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#count")})
		return err
	})
}

// BenchmarkE2EActionType: type into a text field with clear (focus,
// select all, insertText, read back). Target: p50 ≤ 10 ms.
func BenchmarkE2EActionType(b *testing.B) {
	benchAction(b, func(ctx context.Context, f *actFixture, tab int) error {
		_, err := f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("#name"), Text: "Ada Lovelace", Clear: true})
		return err
	})
}

// BenchmarkE2EActionEvaluate: execute_js "1+1". Target: p50 ≤ 3 ms.
func BenchmarkE2EActionEvaluate(b *testing.B) {
	benchAction(b, func(ctx context.Context, f *actFixture, tab int) error {
		r, err := f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: "1+1"})
		if err == nil && r.Value != 2.0 {
			b.Fatalf("1+1 = %v", r.Value)
		}
		return err
	})
}

// BenchmarkE2EActionClickRef: click by snapshot ref (resolve through the
// snapshot's ref table).
func BenchmarkE2EActionClickRef(b *testing.B) {
	benchAction(b, func(ctx context.Context, f *actFixture, tab int) error {
		_, err := f.eng.Click(ctx, tab, actions.ClickArgs{Target: ref(f.benchRef)})
		return err
	})
}

func benchAction(b *testing.B, op func(ctx context.Context, f *actFixture, tab int) error) {
	f := newActFixture(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	s := f.page(b, ctx, "form.html")
	tab := s.TabID()
	snap, err := f.snap.Take(ctx, tab, snapshotOpts)
	if err != nil {
		b.Fatal(err)
	}
	f.benchRef = refOf(b, snap.Text, `button "Count"`)
	for range 10 { // warm-up: worlds, helpers, V8
		if err := op(ctx, f, tab); err != nil {
			b.Fatal(err)
		}
	}
	var lat latencies
	b.ResetTimer()
	for b.Loop() {
		if err := lat.time(func() error { return op(ctx, f, tab) }); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	lat.report(b)
}
