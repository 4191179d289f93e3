package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// fakePages plans every call with plan (or refuses with err) and records
// what ran without asking.
type fakePages struct {
	plan    PagePlan
	err     *tools.Error
	tab     int
	unasked []approval.Request
}

func (f *fakePages) Plan(_ context.Context, _ *mcpserver.Call, tab int) (PagePlan, *tools.Error) {
	f.tab = tab
	return f.plan, f.err
}

func (f *fakePages) Unasked(_ *mcpserver.Call, req approval.Request) {
	f.unasked = append(f.unasked, req)
}

func pageGate(t *testing.T, f *fakePages) (*Gate, *approval.Engine) {
	t.Helper()
	eng, err := approval.New(&approval.Options{})
	require.NoError(t, err)
	cfg := testConfig(eng)
	cfg.PageTools = f
	g, err := New(cfg)
	require.NoError(t, err)
	return g, eng
}

const pageCall = `{"what":"call_page_tool","name":"add","arguments":{"pw":"hunter2"},"timeout_ms":1}`

// A tool the page marked read-only runs without asking, and the gate
// hands the words of that call to the audit log.
func TestPageToolReadOnlyRunsUnasked(t *testing.T) {
	f := &fakePages{plan: PagePlan{ReadOnly: true, Target: `call the page's own tool "read"`, Lines: []string{"x"}, Def: "d1"}}
	g, eng := pageGate(t, f)
	require.Nil(t, g.Check(t.Context(), call(t, "s1", "interact", pageCall)))
	require.Equal(t, 7, f.tab, "planned on the session's tab")
	require.Empty(t, eng.Pending("s1"))
	require.Len(t, f.unasked, 1)
	require.Equal(t, `call the page's own tool "read" on tab 7 (https://shop.example)`, f.unasked[0].Target)
	require.Equal(t, policy.ReadOnly, f.unasked[0].Class)
}

// Any other tool asks, with the page tool's words (redacted) and its
// definition bound to the approval.
func TestPageToolMutatingAsks(t *testing.T) {
	f := &fakePages{plan: PagePlan{Target: `call the page's own tool "add"`, Lines: []string{`with these arguments, exactly: {"pw":"hunter2"}`}, Def: "d1"}}
	g, eng := pageGate(t, f)
	e := g.Check(t.Context(), call(t, "s1", "interact", pageCall))
	require.NotNil(t, e)
	require.Equal(t, approval.CodeRequired, e.Code)
	p := eng.Pending("s1")
	require.Len(t, p, 1)
	require.Equal(t, `call the page's own tool "add" on tab 7 (https://shop.example)`, p[0].Target)
	require.Equal(t, []string{`with these arguments, exactly: {"pw":"[REDACTED:password]"}`}, p[0].Steps)
	require.Equal(t, policy.Mutating, p[0].Class)
	require.True(t, strings.HasSuffix(p[0].Call, "+d1"), "the approval holds for this definition of the tool only: %s", p[0].Call)
	require.Empty(t, f.unasked)
}

// A plan's refusal is the call's, before anything is asked; without page
// tools the mode is refused; a page tool cannot hide inside a batch.
func TestPageToolRefusals(t *testing.T) {
	f := &fakePages{err: tools.Errorf("page_tool_not_found", "no such tool")}
	g, eng := pageGate(t, f)
	e := g.Check(t.Context(), call(t, "s1", "interact", pageCall))
	require.Equal(t, "page_tool_not_found", e.Code)
	e = g.Check(t.Context(), call(t, "s1", "interact", `{"what":"call_page_tool","name":"add","tab_id":9}`))
	require.Equal(t, "tab_not_owned", e.Code, "a tab the session cannot use is refused first")
	e = g.Check(t.Context(), call(t, "s1", "interact", `{"what":"batch","steps":[{"what":"call_page_tool","name":"add"}]}`))
	require.Equal(t, tools.CodeInvalidArgument, e.Code)
	require.Contains(t, e.Message, "cannot run inside a batch")
	require.Empty(t, eng.Pending("s1"))

	bare, _ := newGate(t)
	e = bare.Check(t.Context(), call(t, "s1", "interact", pageCall))
	require.Equal(t, tools.CodeNotAvailable, e.Code)
}
