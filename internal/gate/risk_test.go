package gate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// TestRiskByWhatTheCallDoes: the tier of each kind of call, and why, as
// the prompt says it — decided from the mode's class and what the call
// does to its target.
func TestRiskByWhatTheCallDoes(t *testing.T) {
	for _, tc := range []struct {
		tool, args string
		tier       approval.Tier
		why        string   // a part of Risk.Why ("" for medium)
		kinds      []string // the reasons' kinds
	}{
		{"interact", `{"what":"click","ref":"e2"}`, approval.Medium, "", nil},
		{"interact", `{"what":"click","ref":"e7"}`, approval.Medium, "", nil}, // a link on the page's origin
		{"interact", `{"what":"click","ref":"e4"}`, approval.High, `submits form "Checkout" to https://shop.example`, []string{approval.RiskSubmit}},
		{"interact", `{"what":"click","ref":"e5"}`, approval.High, "submits a form to https://collect.example, another origin", []string{approval.RiskSubmit}},
		{"interact", `{"what":"click","ref":"e6"}`, approval.High, "follows a link to https://docs.example, another origin", []string{approval.RiskLeave}},
		{"interact", `{"what":"click","ref":"e8"}`, approval.High, `downloads "report.pdf" from https://shop.example`, []string{approval.RiskDownload}},
		{"interact", `{"what":"click","ref":"e9"}`, approval.High, `clicks a control named like "delete": button "Delete notebook"`, []string{approval.RiskNamed}},
		{"interact", `{"what":"click","ref":"e11"}`, approval.High, `named like "pay"`, []string{approval.RiskNamed}},
		{"interact", `{"what":"click","ref":"e3"}`, approval.High, `named like "transfer"`, []string{approval.RiskNamed}},
		{"interact", `{"what":"click","ref":"e10"}`, approval.High, "inside a frame", []string{approval.RiskUnseen}},
		{"interact", `{"what":"click","ref":"e99"}`, approval.High, "could not be read", []string{approval.RiskUnseen}},
		{"interact", `{"what":"click","x":10,"y":20}`, approval.Medium, "", nil},
		{"interact", `{"what":"type","ref":"e1","text":"Ada"}`, approval.Medium, "", nil},
		{"interact", `{"what":"type","ref":"e1","text":"Ada\n"}`, approval.High, `submits form "Checkout"`, []string{approval.RiskSubmit}},
		{"interact", `{"what":"key_press","keys":"Control+s"}`, approval.Medium, "", nil},
		{"interact", `{"what":"key_press","keys":"Tab Enter"}`, approval.High, `submits form "Checkout"`, []string{approval.RiskSubmit}},
		{"interact", `{"what":"key_press","keys":"Enter","ref":"e9"}`, approval.High, `presses keys on a control named like "delete"`, []string{approval.RiskNamed}},
		{"interact", `{"what":"select","ref":"e1","value":"x"}`, approval.Medium, "", nil},
		{"interact", `{"what":"check","ref":"e1"}`, approval.Medium, "", nil},
		{"interact", `{"what":"fill_form","fields":[{"ref":"e1","value":"Ada"}]}`, approval.Medium, "", nil},
		{"interact", `{"what":"fill_form","fields":[{"ref":"e1","value":"Ada"}],"submit":true}`, approval.High, `submits form "Checkout"`, []string{approval.RiskSubmit}},
		{"interact", `{"what":"navigate","url":"https://shop.example/pay"}`, approval.Medium, "", nil},
		{"interact", `{"what":"navigate","url":"https://evil.example/"}`, approval.High, "goes to https://evil.example, another origin", []string{approval.RiskLeave}},
		{"interact", `{"what":"new_tab","url":"https://evil.example/"}`, approval.Medium, "", nil}, // from no page: nothing is left
		{"interact", `{"what":"back"}`, approval.High, "goes to https://evil.example", []string{approval.RiskLeave}},
		{"interact", `{"what":"forward"}`, approval.Medium, "", nil},
		{"interact", `{"what":"refresh"}`, approval.Medium, "", nil},
		{"interact", `{"what":"execute_js","script":"1"}`, approval.Sensitive, "runs its own script", nil},
		{"interact", `{"what":"upload","ref":"e1","files":["/tmp/a.txt"]}`, approval.Sensitive, "gives the page files", nil},
		{"interact", `{"what":"batch","steps":[{"what":"type","ref":"e1","text":"Ada"},{"what":"click","ref":"e4"}]}`, approval.High, `submits form "Checkout"`, []string{approval.RiskSubmit}},
		{"configure", `{"what":"store","key":"k","value":"v"}`, approval.Medium, "", nil},
		{"configure", `{"what":"redaction","op":"add_pattern","pattern":"x"}`, approval.Sensitive, "changes a guard", nil},
	} {
		t.Run(tc.args, func(t *testing.T) {
			args := strings.TrimSuffix(tc.args, "}") + `,"timeout_ms":1}`
			r := pending(t, "s1", tc.tool, args)
			require.NotNil(t, r.Risk)
			require.Equal(t, tc.tier, r.Risk.Tier, "why: %s", r.Risk.Why)
			if tc.why == "" {
				require.Empty(t, r.Risk.Why)
			}
			require.Contains(t, r.Risk.Why, tc.why)
			var kinds []string
			for _, rs := range r.Risk.Reasons {
				kinds = append(kinds, rs.Kind)
			}
			require.Equal(t, tc.kinds, kinds)
		})
	}
}

// A point is named by the element drawn there, and where.
func TestPointClickNamesWhatIsThere(t *testing.T) {
	r := pending(t, "s1", "interact", `{"what":"click","x":10,"y":20,"timeout_ms":1}`)
	require.Equal(t, `click button "Press me" at the point (10, 20) on tab 7 (https://shop.example)`, r.Target)
}

// planned runs interact plan for s1 (args merged into a plan of clicks,
// typing and navigation on the shop), approves it with ticks, and returns
// the gate and engine.
func planned(t *testing.T, extra string, ticks ...int) (*Gate, *approval.Engine) {
	t.Helper()
	g, eng := newGate(t)
	args := `{"what":"plan","intent":"tidy the cart","origins":["https://shop.example"],"actions":["click","type","navigate","key_press"],"timeout_ms":1` + extra + `}`
	e := g.Check(t.Context(), call(t, "s1", "interact", args))
	require.NotNil(t, e)
	require.Equal(t, approval.CodeRequired, e.Code, e.Message)
	p := eng.Pending("s1")
	require.Len(t, p, 1)
	_, err := eng.Approve(p[0].RequestID, approval.Decision{Kind: approval.Once, Ticks: ticks})
	require.NoError(t, err)
	require.Len(t, eng.Plans("s1"), 1)
	return g, eng
}

// TestInsideAPlanStillAsks (issue 30's Done-when): once a plan is
// approved, its medium calls run unasked; navigation to an origin outside
// it, a form submit to another origin, a click on a "Delete" or "Pay"
// control it did not name, execute_js and upload each still ask, and the
// prompt and the agent's error say it is outside the plan.
func TestInsideAPlanStillAsks(t *testing.T) {
	g, eng := planned(t, "")
	for _, args := range []string{
		`{"what":"click","ref":"e2"}`,
		`{"what":"type","ref":"e1","text":"Ada"}`,
		`{"what":"navigate","url":"https://shop.example/next"}`,
		`{"what":"key_press","keys":"Control+s"}`,
	} {
		require.Nil(t, g.Check(t.Context(), call(t, "s1", "interact", args)), "%s runs under the plan", args)
	}
	require.Empty(t, eng.Pending("s1"))
	for _, tc := range []struct{ name, args, outside string }{
		{"navigation to an origin outside the plan", `{"what":"navigate","url":"https://evil.example/"}`, "which the plan does not name"},
		{"a form submit to another origin", `{"what":"click","ref":"e5"}`, "submits a form to https://collect.example"},
		{"a Delete control", `{"what":"click","ref":"e9"}`, `named like "delete"`},
		{"a Pay control", `{"what":"click","ref":"e11"}`, `named like "pay"`},
		{"execute_js", `{"what":"execute_js","script":"document.title"}`, "is sensitive"},
		{"upload", `{"what":"upload","ref":"e1","files":["/tmp/a.txt"]}`, "is sensitive"},
		{"a mode the plan does not name", `{"what":"select","ref":"e1","value":"x"}`, "does not name select"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := g.Check(t.Context(), call(t, "s1", "interact", strings.TrimSuffix(tc.args, "}")+`,"timeout_ms":1}`))
			require.NotNil(t, e, "it ran under the plan")
			require.Equal(t, approval.CodeRequired, e.Code, e.Message)
			require.Contains(t, e.Message, "It is outside your approved plan: ")
			require.Contains(t, e.Message, tc.outside)
			r := e.Details.(RequiredDetails)
			require.Contains(t, r.OutsidePlan, tc.outside, "the prompt says why")
		})
	}
	c := eng.Counts("s1")
	require.Equal(t, 4, c.ByPlan)
	require.Equal(t, 8, c.Asked, "the plan and the seven calls outside it")
}

// A high-risk kind the plan named and the user ticked runs unasked; the
// one the user left unticked asks.
func TestPlanTickedHighItems(t *testing.T) {
	high := `,"high":[{"what":"click","risk":"named","target":"delete"},{"what":"click","risk":"submit","target":"https://shop.example"}]`
	g, _ := planned(t, high, 0)
	require.Nil(t, g.Check(t.Context(), call(t, "s1", "interact", `{"what":"click","ref":"e9"}`)), "ticked: Delete")
	e := g.Check(t.Context(), call(t, "s1", "interact", `{"what":"click","ref":"e4","timeout_ms":1}`))
	require.NotNil(t, e, "not ticked: a submit on the shop")
	require.Equal(t, approval.CodeRequired, e.Code)
	require.Contains(t, e.Message, "high-risk")
}

// A plan the user could not read in full, or that reaches too wide, is
// refused before anything is asked, with what to change.
func TestPlanRefusedBeforeAsking(t *testing.T) {
	g, eng := newGate(t)
	for args, want := range map[string]string{
		`{"what":"plan","intent":"x","origins":["https://*.co.uk"],"actions":["click"]}`:                                                                                   "wider than a registrable domain",
		`{"what":"plan","intent":"x","origins":["https://shop.example/cart"],"actions":["click"]}`:                                                                         "nothing more",
		`{"what":"plan","intent":"x","origins":["https://shop.example"],"actions":["execute_js"]}`:                                                                         "always approved alone",
		`{"what":"plan","intent":"x","origins":["https://shop.example"],"actions":["plan"]}`:                                                                               "not one a plan may cover",
		`{"what":"plan","intent":"x","origins":["https://shop.example"],"actions":["click"],"high":[{"what":"click","risk":"unseen"}]}`:                                    "name submit, download or named",
		`{"what":"plan","intent":"x","origins":["https://shop.example"],"actions":["click"],"high":[{"what":"click","risk":"named","target":"reload"}]}`:                   "one of buy, confirm",
		`{"what":"plan","intent":"x","origins":["https://shop.example"],"actions":["click"],"high":[{"what":"type","risk":"named","target":"send"}]}`:                      "not among the plan's actions",
		`{"what":"plan","intent":"x","origins":["https://shop.example"],"actions":["click"],"high":[{"what":"click","risk":"submit","target":"https://collect.example"}]}`: "one of the plan's origins",
	} {
		e := g.Check(t.Context(), call(t, "s1", "interact", args))
		require.NotNil(t, e, args)
		require.Equal(t, tools.CodeInvalidArgument, e.Code, args)
		require.Contains(t, e.Message, want, args)
	}
	require.Empty(t, eng.Pending(""), "nothing was asked")
}

// The plan's prompt: its own words, the agent's intent quoted as the
// agent's (redacted, whole in the detail), what it covers, for how long,
// what still asks, each high-risk item in words to tick; approved once or
// not at all, never by a grant, never by a policy rule.
func TestPlanPromptWords(t *testing.T) {
	r := pending(t, "s1", "interact", `{"what":"plan","intent":"log in with hunter2, then tidy the cart","origins":["https://shop.example","https://*.pay.example"],"actions":["click","type"],"minutes":20,"high":[{"what":"click","risk":"named","target":"Delete"}],"timeout_ms":1}`)
	require.Equal(t, modeWords("plan"), r.Describe)
	require.Equal(t, `the agent's plan, in its words: "log in with [REDACTED:password], then tidy the cart"`, r.Target)
	require.Empty(t, r.Detail, "the line quotes it whole")
	require.Equal(t, "It may act on https://shop.example, https://*.pay.example (a *. origin: that site and its subdomains).", r.Notes[0])
	require.Equal(t, approval.Sensitive, r.Risk.Tier)
	require.Equal(t, "Kinds of action: click on the page; type text into the page.", r.Notes[1])
	require.Contains(t, r.Notes[2], "For 20 minutes")
	require.Contains(t, r.Notes[len(r.Notes)-1], "Still asks every time: anything on another site")
	require.Equal(t, []approval.Kind{approval.Once}, r.Offers)
	require.Equal(t, []approval.PlanHigh{{Mode: "click", Kind: approval.RiskNamed, To: "delete", Words: `click on the page, on controls named like "delete"`}}, r.Plan.High)
	require.Equal(t, []string{"https://shop.example", "https://*.pay.example"}, r.Plan.Origins)

	long := strings.Repeat("open each order and check its total; ", 5)
	r = pending(t, "s1", "interact", `{"what":"plan","intent":`+quoteJSON(long)+`,"origins":["https://shop.example"],"actions":["click"],"timeout_ms":1}`)
	require.Equal(t, strings.TrimSpace(long), r.Detail, "a long intent is shown whole below its line")
	require.Equal(t, "It may act on https://shop.example.", r.Notes[0])
}

// approval_required tells the agent, with the exact call, to propose a
// plan when it will make several changes on the site.
func TestApprovalRequiredSuggestsAPlan(t *testing.T) {
	g, _ := newGate(t)
	e := g.Check(t.Context(), call(t, "s1", "interact", `{"what":"click","ref":"e9","timeout_ms":1}`))
	require.NotNil(t, e)
	require.Contains(t, e.Message, `Several changes to make on https://shop.example? Propose a plan the user approves once`)
	require.Contains(t, e.Message, `"origins":["https://shop.example"]`)
	require.Contains(t, e.Message, `"high":[{"risk":"named","target":"delete","what":"click"}]`)
	hint := e.Details.(RequiredDetails).SuggestPlan
	require.NotNil(t, hint)
	raw, err := json.Marshal(hint.Arguments)
	require.NoError(t, err)
	_, pe := tools.Parse(hint.Tool, raw)
	require.Nil(t, pe, "the suggested plan call is one interact plan takes (its intent filled in)")
	e = g.Check(t.Context(), call(t, "s1", "interact", `{"what":"execute_js","script":"1","timeout_ms":1}`))
	require.NotContains(t, e.Message, "Propose a plan", "a plan never covers a script")
}
