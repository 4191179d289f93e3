package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// actFixture is a chain with a Snapshotter and an actions Engine wired the
// way the dispatcher wires them: over the daemon's targets (sessions, OOPIF
// child sessions, refs invalidated on main-frame navigations).
type actFixture struct {
	*snapFixture
	eng      *actions.Engine
	benchRef string
}

var snapshotOpts = snapshot.Options{InteractiveOnly: true}

func newActFixture(t testing.TB) *actFixture {
	f := &actFixture{snapFixture: newSnapFixture(t)}
	f.eng = actions.New(actions.Config{Target: f.c.Server.Target, Snapshots: f.snap, Protected: []string{f.c.Home}})
	return f
}

// page opens a tab on a testdata page under pages/actions/.
func (f *actFixture) page(t testing.TB, ctx context.Context, name string) *cdp.Session {
	t.Helper()
	return f.open(t, ctx, f.c.PageURL("pages/actions/"+name))
}

// read evaluates expression in the page and decodes its JSON value: the
// ground truth tests check actions against.
func read[T any](t testing.TB, ctx context.Context, s *cdp.Session, expression string) T {
	t.Helper()
	raw, err := evaluate(ctx, s, expression)
	require.NoError(t, err, "evaluating %s", expression)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "decoding %s = %s", expression, raw)
	return v
}

// sel and ref build targets.
func sel(s string) actions.Target { return actions.Target{Selector: s} }
func ref(r string) actions.Target { return actions.Target{Ref: r} }

func pt(v float64) *float64 { return &v }

// codeOf returns the code of a structured tool error ("" for others).
func codeOf(err error) string {
	var te *tools.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

// take snapshots a tab, once more if the page's load was still settling
// (the snapshot refuses a tab that navigated meanwhile).
func (f *actFixture) take(t testing.TB, ctx context.Context, tab int, o snapshot.Options) *snapshot.Result {
	t.Helper()
	r, err := f.snap.Take(ctx, tab, o)
	if err != nil && strings.Contains(err.Error(), "navigated during the snapshot") {
		r, err = f.snap.Take(ctx, tab, o)
	}
	require.NoError(t, err)
	return r
}
