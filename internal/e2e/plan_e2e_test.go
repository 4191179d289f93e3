//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/safety"
)

// Issue 30: approvals that scale. An agent proposes a plan, the user
// approves it once, and the plan's medium-risk calls run unasked; what is
// high-risk, sensitive or outside the plan still asks, and says why.

// defaultPolicy is a policy file with no rules: the built-in default
// decides (reads run, every change asks).
const defaultPolicy = `{"version":1,"rules":[]}`

// user plays the person at the panel from inside the test: every prompt
// is recorded, and answered as decide says (nil: left pending).
type person struct {
	mu    sync.Mutex
	asked []approval.Request
}

func instantUser(t testing.TB, eng *approval.Engine, decide func(approval.Request) *approval.Decision) *person {
	u := &person{}
	events, stop := eng.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range events {
			if ev.Type != approval.Requested {
				continue
			}
			u.mu.Lock()
			u.asked = append(u.asked, ev.Request)
			u.mu.Unlock()
			if d := decide(ev.Request); d != nil {
				if _, err := eng.Approve(ev.Request.RequestID, *d); err != nil {
					t.Errorf("approving %s: %v", ev.Request.Action, err)
				}
			}
		}
	}()
	t.Cleanup(func() { stop(); <-done })
	return u
}

// prompts is how many prompts the user saw so far.
func (u *person) prompts() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.asked)
}

// plansOnly approves plans as they are (no item ticked) and nothing else.
func plansOnly(q approval.Request) *approval.Decision {
	if q.Plan != nil {
		return &approval.Decision{Kind: approval.Once}
	}
	return nil
}

// auditEntries reads the audit log.
func auditEntries(t *testing.T, c *Chain) []map[string]any {
	t.Helper()
	f, err := os.Open(safety.AuditPath(c.Home))
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// TestE2EPlanStillAsks: in real Chromium, with an approved plan for the
// test site's origin, clicking a plain button and typing a note run
// without a prompt (the audit log records each call the plan covered);
// navigation to an origin outside the plan, a form submit to another
// origin, a click on "Delete notebook" or "Pay now", a link to another
// origin, a download, execute_js and an upload each still ask, each
// prompt saying why it is outside the plan and how risky it is — read
// from the page itself (the form's action, the link's address, the
// control's name).
func TestE2EPlanStillAsks(t *testing.T) {
	r := startRelay(t, ChainOptions{Policy: defaultPolicy})
	eng := r.Server.Approvals()
	u := instantUser(t, eng, plansOnly)
	a := r.client(t, "planner")
	origin := r.site.URL
	other := strings.Replace(origin, "127.0.0.1", "localhost", 1)

	p := a.ok("interact", map[string]any{"what": "plan", "intent": "Press the button and write a note on the orders page",
		"origins": []string{origin}, "actions": []string{"new_tab", "click", "type", "navigate"}, "minutes": 10, "timeout_ms": 30000})
	planID, _ := p.Data["plan_id"].(string)
	require.True(t, strings.HasPrefix(planID, "pln_"), "the plan: %s", p.Text)
	require.Equal(t, 1, u.prompts(), "the plan is one prompt")

	tab := a.newTab(r.url("pages/approvals/risk.html")) // opens an origin the plan names
	a.act("click", map[string]any{"selector": "#press"})
	a.act("type", map[string]any{"selector": "#note", "text": "hello"})
	got := a.act("get_text", map[string]any{"selector": "#pressed"})
	require.Contains(t, got.Text, "1", "the click ran")
	require.Equal(t, 1, u.prompts(), "the plan covered new_tab, click and type: no prompt")

	for _, tc := range []struct {
		name      string
		args      map[string]any
		risk, why string // the request's tier, and a part of OutsidePlan
	}{
		{"navigation to an origin outside the plan", map[string]any{"what": "navigate", "url": other + "/pages/approvals/risk.html"},
			"high", "goes to " + other + ", which the plan does not name"},
		{"a form submit to another origin", map[string]any{"what": "click", "selector": "#go"},
			"high", `submits form "collect" to ` + other + ", another origin"},
		{"a form submit on the page's origin, not named by the plan", map[string]any{"what": "click", "selector": "#order"},
			"high", `submits form "Checkout" to ` + origin},
		{"a Delete control", map[string]any{"what": "click", "selector": "#delete"}, "high", `named like "delete"`},
		{"a Pay control", map[string]any{"what": "click", "selector": "#pay"}, "high", `named like "pay"`},
		{"a link to another origin", map[string]any{"what": "click", "selector": "#docs"}, "high", "follows a link to " + other},
		{"a download", map[string]any{"what": "click", "selector": "#report"}, "high", `downloads "report.txt"`},
		{"execute_js", map[string]any{"what": "execute_js", "script": "document.title"}, "sensitive", "is sensitive"},
		{"an upload", map[string]any{"what": "upload", "selector": "#file",
			"file_contents": []any{map[string]any{"name": "a.txt", "type": "text/plain", "base64": "aGk="}}}, "sensitive", "is sensitive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := u.prompts()
			args := map[string]any{"tab_id": tab, "timeout_ms": 300}
			for k, v := range tc.args {
				args[k] = v
			}
			ans := a.call("interact", args)
			require.True(t, ans.IsError, "it ran under the plan: %s", ans.Text)
			require.Equal(t, "approval_required", ans.code(), ans.Text)
			require.Contains(t, ans.Text, "It is outside your approved plan")
			d, _ := ans.Data["details"].(map[string]any)
			require.Contains(t, d["outside_plan"], tc.why)
			risk, _ := d["risk"].(map[string]any)
			require.Equal(t, tc.risk, risk["tier"], "risk %v", risk)
			require.Equal(t, before+1, u.prompts(), "the user was asked")
			require.NoError(t, eng.Deny(d["request_id"].(string), "not in this test"))
		})
	}
	require.Contains(t, a.act("get_text", map[string]any{"selector": "#pressed"}).Text, "1", "nothing else pressed")

	var covered []string
	for _, e := range auditEntries(t, r.Chain) {
		if e["decision"] == "consumed" && e["by"] == "plan" && e["approval_id"] == planID {
			covered = append(covered, e["target"].(string))
		}
	}
	require.Len(t, covered, 3, "the audit log records each call the plan covered: %v", covered)
	require.Contains(t, covered[1], `click button "Press me"`)
	require.Contains(t, covered[2], `type "hello" into textbox "Note"`)

	ap := a.observe("approvals", nil)
	require.Equal(t, planID, ap.Data["plan"].(map[string]any)["plan_id"], "observe approvals shows the live plan")
	counts := ap.Data["counts"].(map[string]any)
	require.EqualValues(t, 3, counts["covered_by_plan"])
	require.EqualValues(t, 10, counts["asked"], "the plan and the nine calls outside it")
	require.EqualValues(t, 9, counts["refused"])
}

// TestE2EPanelPlan: the plan's prompt read in the panel as a person reads
// it — the agent's intent, the sites, the kinds of action, how long, and
// each high-risk item it names with its box unticked; the user ticks one
// and approves with a trusted click. The ticked kind (Delete) then runs
// unasked, the unticked one (a submit) asks; the counts show in the
// panel; Revoke in "Plans and grants" ends the plan at once and the next
// call asks again.
func TestE2EPanelPlan(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{RemoteDebugging: true, Policy: defaultPolicy})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	p := openPanel(t, ctx, c)
	a := mcpClient(t, c.Server.Port(), c.Server.Token(), "planner")
	p.waitState(ctx, "ready")
	origin := c.Pages.URL

	done := callAsync(a, "interact", map[string]any{"what": "plan", "intent": "Tidy the orders page: delete the old notebook",
		"origins": []string{origin}, "actions": []string{"new_tab", "click"}, "minutes": 15, "timeout_ms": 60000,
		"high": []any{map[string]any{"what": "click", "risk": "named", "target": "delete"},
			map[string]any{"what": "click", "risk": "submit", "target": origin}}})
	w := p.read(ctx, "interact.plan")
	require.Equal(t, "Approve a plan once: the changes it lists run on the sites it names without asking you each time, until it ends (anything else still asks)", w.Describe)
	require.Equal(t, `the agent's plan, in its words: "Tidy the orders page: delete the old notebook"`, w.Target)
	require.Contains(t, w.Notes, "Kinds of action: open a new tab; click on the page.")
	var plan struct {
		Origins, Actions, Lasts, Approve string
		Items                            []string
		Ticked                           []bool
		Site, Session                    bool
	}
	sel := `.prompt[data-request-id="` + w.ID + `"]`
	require.NoError(t, p.eval(ctx, `(() => {
	  const li = document.querySelector('`+sel+`');
	  const f = (k) => li.querySelector('[data-field="' + k + '"]').textContent;
	  return {origins: f('plan-origins'), actions: f('plan-actions'), lasts: f('plan-lasts'),
	    approve: li.querySelector('.approve-once').textContent,
	    items: [...li.querySelectorAll('.tick-text')].map((e) => e.textContent),
	    ticked: [...li.querySelectorAll('.tick-box')].map((e) => e.checked),
	    site: !li.querySelector('.site').closest('[hidden]') && !li.querySelector('.site').hidden,
	    session: !li.querySelector('.approve-session').hidden};
	})()`, &plan))
	require.Equal(t, origin, plan.Origins)
	require.Equal(t, "new_tab, click", plan.Actions)
	require.Equal(t, "15 minutes", plan.Lasts)
	require.Equal(t, "Approve the plan", plan.Approve)
	require.Equal(t, []string{`click on the page, on controls named like "delete"`, "click on the page, submitting forms to " + origin}, plan.Items)
	require.Equal(t, []bool{false, false}, plan.Ticked, "nothing ticked until the user ticks it")
	require.False(t, plan.Site || plan.Session, "a plan is never a grant")
	p.shot(ctx, "10-plan-prompt.png")

	p.click(ctx, "#prompt-"+w.ID+"-tick-0")
	p.click(ctx, sel+" .approve-once")
	res := <-done
	require.False(t, res.IsError, "the plan call: %s", res.Text)
	ticked := asSlice(res.Data["high_ticked"])
	require.Len(t, ticked, 1, "only the item the user ticked: %s", res.Text)
	require.Equal(t, "delete", ticked[0].(map[string]any)["target"])
	planID := res.Data["plan_id"].(string)

	p.waitFor(ctx, "the plan listed", `[...document.querySelectorAll('#grants .plan-grant')].some((e) =>
	  e.dataset.grantId === '`+planID+`' && e.textContent.includes('Tidy the orders page'))`)
	tab := a.newTab(c.PageURL("pages/approvals/risk.html"))
	a.act("click", map[string]any{"selector": "#delete", "tab_id": tab}) // ticked: runs unasked
	x := a.call("interact", map[string]any{"what": "click", "selector": "#order", "tab_id": tab, "timeout_ms": 300})
	require.Equal(t, "approval_required", x.code(), "a submit the user did not tick asks: %s", x.Text)
	require.Contains(t, x.Text, `submits form "Checkout"`)
	p.waitFor(ctx, "the counts in the status", `[...document.querySelectorAll('#status dd')].some((e) =>
	  e.textContent === '4 changes: 2 asked you, 2 ran under a plan or grant, 0 by the policy, 0 refused')`)
	p.shot(ctx, "11-plan-live.png")

	p.click(ctx, `#grants .plan-grant[data-grant-id="`+planID+`"] .revoke`)
	p.waitFor(ctx, "the plan gone from the list", `!document.querySelector('#grants .plan-grant')`)
	require.Empty(t, c.Server.Approvals().Plans(""), "revoked at once")
	x = a.call("interact", map[string]any{"what": "click", "selector": "#delete", "tab_id": tab, "timeout_ms": 300})
	require.Equal(t, "approval_required", x.code(), "after revoke the next call asks: %s", x.Text)
}
