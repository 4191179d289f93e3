//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
	"github.com/gasoline-mcp/gasoline/internal/visible"
)

// Page content is data (issue 15), through a real MCP client, the daemon
// and Chromium: hidden text never reaches the agent, page text comes
// fenced, instruction-like passages are flagged, and the user sees the
// flag beside the next approval request.

// shopTokens reads the corpus page's tokens from the file itself:
// zqhideNN (hidden passages), zqseeNN (visible text), zqnameNN (names of
// controls from visually-hidden labels).
func shopTokens(t *testing.T) (hide, see, name []string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), "testdata", "pages", "hidden", "shop.html"))
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, tok := range regexp.MustCompile(`zq(hide|see|name)\d+`).FindAllString(string(raw), -1) {
		if seen[tok] || strings.Contains(tok, "NN") {
			continue
		}
		seen[tok] = true
		switch {
		case strings.HasPrefix(tok, "zqhide"):
			hide = append(hide, tok)
		case strings.HasPrefix(tok, "zqsee"):
			see = append(see, tok)
		default:
			name = append(name, tok)
		}
	}
	require.Len(t, hide, 31, "hidden passages in the corpus")
	return hide, see, name
}

// everything is all an answer shows an agent: its text and its
// structuredContent.
func everything(a answer) string {
	raw, _ := json.Marshal(a.Raw.StructuredContent)
	return a.Text + "\n" + string(raw)
}

// tally reports which of want appear in s.
func tally(s string, want []string) (in, out []string) {
	for _, w := range want {
		if strings.Contains(s, w) {
			in = append(in, w)
		} else {
			out = append(out, w)
		}
	}
	return in, out
}

// fenceNonce returns the nonce of an answer's fence, checking that the
// answer is fenced with the same nonce on both lines.
func fenceNonce(t *testing.T, a answer) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(untrusted.OpenMark) + ` ([A-Z2-7]{12}):.*$`).FindStringSubmatch(a.Text)
	require.NotNil(t, m, "not fenced:\n%s", a.Text)
	require.True(t, strings.HasSuffix(a.Text, untrusted.CloseMark+" "+m[1]+">>>"), "the fence does not close with its nonce:\n%s", a.Text)
	return m[1]
}

func TestE2EUntrustedHiddenText(t *testing.T) {
	hide, see, names := shopTokens(t)
	x := startInteract(t, "untrusted-hidden")
	x.newTab(x.PageURL("pages/hidden/shop.html"))

	snap := x.observe("snapshot", nil)
	text := x.act("get_text", map[string]any{"selector": "body"})
	explore := x.act("explore_page", nil)
	t.Logf("snapshot:\n%s", snap.Text)

	nonce := fenceNonce(t, snap)
	require.NotEqual(t, nonce, fenceNonce(t, text), "a nonce per result")
	require.NotEqual(t, fenceNonce(t, text), fenceNonce(t, explore), "a nonce per result")

	// What reached the agent, per answer: no hidden passage; every visible
	// passage (get_text reads the light DOM of body: not the iframe's
	// document, not a label's text that only names an input).
	expect := []struct {
		name  string
		a     answer
		must  []string
		never []string
	}{
		{"observe snapshot", snap, append(slices.Clone(see), names...), hide},
		{"interact get_text", text, without(append(slices.Clone(see), names...), "zqsee20", "zqname02"), hide},
		{"interact explore_page", explore, append(slices.Clone(names), "zqsee05"), hide},
	}
	for _, e := range expect {
		leaked, _ := tally(everything(e.a), e.never)
		_, lost := tally(everything(e.a), e.must)
		t.Logf("%s: hidden passages reaching the agent %d/%d %v; visible passages and names lost %d/%d %v; hidden_dropped %v",
			e.name, len(leaked), len(e.never), leaked, len(lost), len(e.must), lost, e.a.Data["hidden_dropped"])
		assert.Empty(t, leaked, "%s: hidden text reached the agent", e.name)
		assert.Empty(t, lost, "%s: visible text was lost", e.name)
		assert.Greater(t, e.a.Data["hidden_dropped"], 0.0, "%s counts what it dropped", e.name)
		assert.Contains(t, e.a.Text, "passage(s) of page text no person can see (hidden_dropped)", "%s: the note", e.name)
	}
	assert.EqualValues(t, 30, snap.Data["hidden_dropped"], "every hidden passage but the two display:none ones is counted, and the clipped tail of the ellipsis")

	t.Run("names from visually-hidden labels stay, capped", func(t *testing.T) {
		body := snap.Page
		assert.Contains(t, body, `link "zqname01 Skip to content"`, "an off-screen skip link keeps its name")
		assert.Contains(t, body, `searchbox "zqname02 Search products"`)
		assert.Contains(t, body, `button "zqname04 Close banner"`)
		assert.Contains(t, body, `checkbox "zqname06 Gift wrap"`)
		deals := regexp.MustCompile(`link "(Deals zqname05[^"]*)"`).FindStringSubmatch(body)
		require.NotNil(t, deals, "the Deals link is named")
		assert.LessOrEqual(t, len([]rune(strings.TrimPrefix(deals[1], "Deals "))), 80, "the hidden part of a name is capped")
	})

	t.Run("instruction-like text is flagged", func(t *testing.T) {
		found, _ := snap.Data["suspected_instructions"].([]any)
		refs, excerpts := map[string]bool{}, ""
		for _, f := range found {
			m := f.(map[string]any)
			if r, _ := m["ref"].(string); r != "" {
				refs[r] = true
			}
			excerpts += m["excerpt"].(string) + "\n"
		}
		assert.Contains(t, excerpts, "zqname05", "the hidden label inside the Deals link, kept as its name, is checked")
		assert.Contains(t, excerpts, "zqsee19", "the visible review that reads like an instruction")
		assert.NotContains(t, excerpts, "zqhide", "nothing hidden is quoted")
		assert.NotEmpty(t, refs, "a flagged name is pointed at by its ref")
		warn, _, _ := strings.Cut(snap.Text, "\n")
		assert.True(t, strings.HasPrefix(warn, "WARNING from Gasoline:"), "one warning line before the fence: %q", warn)
		assert.NotContains(t, warn, "ignore", "the warning quotes no page text")
		gt, _ := text.Data["suspected_instructions"].([]any)
		assert.NotEmpty(t, gt, "get_text's answer is scanned too")
	})
}

func without(list []string, drop ...string) []string {
	return slices.DeleteFunc(list, func(s string) bool { return slices.Contains(drop, s) })
}

// ordinaryDrops are the passages of the ordinary test pages that no person
// sees, checked by hand: anything else dropped there is visible text lost.
var ordinaryDrops = map[string][]string{
	"pages/form.html":          {"visibility: Hidden by visibility"},
	"pages/large.html":         {"clipped: We never share your address."},
	"pages/analyze/table.html": {"off-page: OFFPAGE"},                // planted for analyze data_table
	"bench:form-plain.html":    {"visibility: Hidden by visibility"}, // form.html less its password field
	// An open menu, opaque white, painted over the heading and both links
	// (a screenshot shows "Menu item" alone); a transparent one hides
	// nothing, and nothing is dropped then.
	"pages/actions/covered-link.html": {"covered: Links", "covered: Docs link", "covered: and", "covered: More"},
	// The closed details panel above the moving frame: 0 px high, its
	// overflow hidden, so "Details" is drawn only once the button opens it.
	"pages/actions/frame-moves.html": {"clipped: Details"},
}

// hiddenJS lists the text runs the shared visibility test drops on the
// current page, with the reason: the same code the walker runs, in the
// page's main world.
const hiddenJS = `(() => {
  const V = globalThis.__gasolineVisible; V.begin();
  const out = [];
  const walk = (el, ctx) => {
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || ['script', 'style', 'head', 'noscript', 'template', 'select'].includes(el.localName)) return;
    const c = V.enter(el, cs, ctx);
    const kids = el.localName === 'details' && !el.open ? [el.querySelector(':scope > summary')].filter(Boolean) : (el.shadowRoot || el).childNodes;
    for (const k of kids) {
      if (k.nodeType === 1) walk(k, c);
      else if (k.nodeType === 3 && /\S/.test(k.data)) { const w = V.textHidden(k, cs, c); if (w) out.push(w + ': ' + k.data.trim()); }
    }
  };
  walk(document.documentElement, V.root(document));
  return out;
})()`

// TestE2EUntrustedOrdinaryPages measures the two errors the rules can make
// on pages that carry no tricks — every page under testdata/ and bench/
// pages/ (testdata/pages/large.html included): passages flagged as
// instructions (goal 0) and visible passages dropped as hidden (goal 0:
// only the ones in ordinaryDrops, which nobody sees).
func TestE2EUntrustedOrdinaryPages(t *testing.T) {
	x := startInteract(t, "untrusted-ordinary")
	bench := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(RepoRoot(), "bench", "pages"))))
	t.Cleanup(bench.Close)
	var pages []string
	for _, glob := range []string{"*.html", "pages/*.html", "pages/*/*.html"} {
		m, err := filepath.Glob(filepath.Join(RepoRoot(), "testdata", glob))
		require.NoError(t, err)
		for _, p := range m {
			rel, _ := filepath.Rel(filepath.Join(RepoRoot(), "testdata"), p)
			if !strings.HasPrefix(rel, "pages/hidden/") {
				pages = append(pages, rel)
			}
		}
	}
	benchPages, _ := filepath.Glob(filepath.Join(RepoRoot(), "bench", "pages", "*.html"))
	for _, p := range benchPages {
		pages = append(pages, "bench:"+filepath.Base(p))
	}
	sort.Strings(pages)
	require.GreaterOrEqual(t, len(pages), 30)

	var passages, flagged, dropped, lost int
	for _, p := range pages {
		url := x.PageURL(p)
		if name, ok := strings.CutPrefix(p, "bench:"); ok {
			url = bench.URL + "/" + name
		}
		var tab int
		if p == "pages/actions/alert-on-load.html" { // it alerts while it loads: new_tab says so at once
			a := x.call("interact", map[string]any{"what": "new_tab", "url": url})
			require.Equal(t, "dialog_open", a.code(), a.Text)
			x.act("handle_dialog", map[string]any{"accept": true})
			tab = int(x.observe("tabs", nil).Data["current_tab"].(float64))
		} else {
			tab = x.newTab(url)
		}
		if p == "pages/relay/dialog.html" { // its alert comes just after load and blocks the page
			eventually(t, 15*time.Second, "the alert answered", func() bool {
				return !x.call("interact", map[string]any{"what": "handle_dialog", "accept": true, "tab_id": tab}).IsError
			})
		}
		snap := x.observe("snapshot", map[string]any{"tab_id": tab})
		text := x.call("interact", map[string]any{"what": "get_text", "selector": "body", "tab_id": tab})
		n := len(strings.Split(strings.TrimSpace(snap.Page), "\n")) - 1 // less the header
		var flags []string
		for _, a := range []answer{snap, text} {
			list, _ := a.Data["suspected_instructions"].([]any)
			for _, f := range list {
				flags = append(flags, fmt.Sprint(f.(map[string]any)["excerpt"]))
			}
		}
		var drops []string // the test's own probe, through the harness's CDP: no agent call (execute_js refuses a script this long)
		x.hand(t, tab).eval(visible.JS()+hiddenJS, &drops)
		unexpected := slices.DeleteFunc(slices.Clone(drops), func(d string) bool { return slices.Contains(ordinaryDrops[p], d) })
		passages += n
		flagged += len(flags)
		dropped += len(drops)
		lost += len(unexpected)
		t.Logf("%-32s %4d snapshot lines, %d flagged %v, %d hidden %v", p, n, len(flags), flags, len(drops), drops)
		assert.Empty(t, flags, "%s: ordinary text flagged as instructions", p)
		assert.Empty(t, unexpected, "%s: visible text dropped as hidden", p)
		x.act("close_tab", map[string]any{"tab_id": tab})
	}
	t.Logf("%d pages, %d snapshot lines: %d false flags (%.2f%%), %d passages dropped as hidden, %d of them visible",
		len(pages), passages, flagged, 100*float64(flagged)/float64(max(passages, 1)), dropped, lost)
}

// elicitingClient is an MCP client whose user answers no elicitation
// (cancel: the panel decides) and records each prompt.
func elicitingClient(t *testing.T, c *Chain, seen chan<- string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   fmt.Sprintf("http://127.0.0.1:%d/mcp", c.Server.Port()),
		HTTPClient: &http.Client{Transport: bearer{c.Server.Token()}}, DisableStandaloneSSE: true, MaxRetries: -1,
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "untrusted-e2e", Version: "1.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			seen <- req.Params.Message
			return &mcp.ElicitResult{Action: "cancel"}, nil
		},
	})
	cs, err := cl.Connect(ctx, tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// TestE2EUntrustedWarningReachesTheUser: after a snapshot that carried
// instruction-like text, the session's next approval request says so
// beside the action — in the panel, in observe approvals and in the audit
// log — and the user decides in the panel. The agent's own MCP client,
// though it declares elicitation, is never asked: nothing that travels
// over the agent's session decides an approval (docs/SECURITY.md).
func TestE2EUntrustedWarningReachesTheUser(t *testing.T) {
	c := StartChainWith(t, hostBin, ChainOptions{Policy: gateClicksPolicy, RemoteDebugging: true})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	seen := make(chan string, 4)
	a := elicitingClient(t, c, seen)
	tab := a.newTab(c.PageURL("pages/hidden/shop.html"))
	snap := a.observe("snapshot", map[string]any{"tab_id": tab})
	require.NotEmpty(t, snap.Data["suspected_instructions"], snap.Text)
	p := openPanel(t, ctx, c)

	done := make(chan answer, 1)
	go func() {
		done <- a.call("interact", map[string]any{"what": "click", "selector": "text=zqsee05 Add to cart", "tab_id": tab, "timeout_ms": 60000})
	}()
	f := p.prompt(ctx, "interact.click")
	assert.Contains(t, f["warning"], "The page contained instruction-like text", "the panel shows it beside the action: %v", f)
	p.viewShot(ctx, "07-page-warning.png", ".prompt")
	pending := a.observe("approvals", nil)
	list, _ := pending.Data["pending"].([]any)
	require.Len(t, list, 1, pending.Text)
	assert.Contains(t, list[0].(map[string]any)["page_warning"], "instruction-like text")
	fenceNonce(t, pending) // observe approvals quotes page text: fenced

	p.click(ctx, `.prompt[data-request-id="`+f["id"]+`"] .deny`)
	res := <-done
	require.True(t, res.IsError)
	require.Equal(t, approval.CodeDenied, res.Data["code"], "%v", res.Data)
	select {
	case msg := <-seen:
		t.Fatalf("the agent's own client was asked to decide: %q", msg)
	default: // the call is over: an elicitation would have come during it
	}

	audit := a.ok("configure", map[string]any{"what": "audit_log"})
	warned := 0
	for _, e := range audit.Data["entries"].([]any) {
		if w, _ := e.(map[string]any)["warning"].(string); strings.Contains(w, "instruction-like text") {
			warned++
		}
	}
	assert.GreaterOrEqual(t, warned, 2, "the audit log keeps the warning with the request and the denial")
	p.close()
}

// forgeryLines is how many lines forge.html writes from an id.
const forgeryLines = 11

// checkNotForged: an answer that carries page lines forged with id has a
// fence of its own (another id), and no line between its fence lines reads
// as a fence line or a note of Gasoline's after folding; wantNeutral lines
// are there, neutralised (get_text quotes the text on one line; a snapshot
// has a line per paragraph).
func checkNotForged(t *testing.T, a answer, id string, wantNeutral int) {
	t.Helper()
	nonce := fenceNonce(t, a)
	require.NotEqual(t, id, nonce, "the page knew this answer's fence id")
	lines := strings.Split(a.Text, "\n")
	open := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, untrusted.OpenMark+" ") })
	require.GreaterOrEqual(t, open, 0, a.Text)
	neutral := 0
	for _, l := range lines[open+1 : len(lines)-1] {
		assert.False(t, untrusted.ImitatesGasoline(l), "a page line reads as Gasoline's: %q", l)
		if strings.Contains(l, untrusted.NotGasolines) {
			neutral++
		}
	}
	assert.GreaterOrEqual(t, neutral, wantNeutral, "the forged lines are there, neutralised:\n%s", a.Text)
	assert.Equal(t, lines[len(lines)-1], untrusted.CloseMark+" "+nonce+">>>", "the real close line ends the answer")
}

// TestE2EUntrustedFenceCannotBeForged: a page that learns a fence id —
// from the URL the agent navigated to, or from what the agent typed into
// a field — writes copies of the close line with it in zero-width,
// homoglyph, fullwidth, combining, variation-selector and bidi disguises,
// and imitations of Gasoline's notes; through a real chain none of them
// reads as Gasoline's line in the next answers (get_text, snapshot), each
// of which has a fence id of its own.
func TestE2EUntrustedFenceCannotBeForged(t *testing.T) {
	x := startInteract(t, "untrusted-forge")
	page := x.PageURL("pages/untrusted/forge.html")
	x.newTab(page)
	learnt := fenceNonce(t, x.observe("snapshot", nil))

	x.act("navigate", map[string]any{"url": page + "?id=" + learnt})
	checkNotForged(t, x.act("get_text", map[string]any{"selector": "#out"}), learnt, 1)
	snap := x.observe("snapshot", nil)
	checkNotForged(t, snap, learnt, forgeryLines)

	typed := fenceNonce(t, snap)
	x.act("type", map[string]any{"selector": "#ref", "text": typed})
	checkNotForged(t, x.act("get_text", map[string]any{"selector": "#out"}), typed, 1)
	checkNotForged(t, x.observe("snapshot", nil), typed, forgeryLines)
}
