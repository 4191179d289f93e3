package gate

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Risk by what a call does, decided here and nowhere else (issue 30):
// besides its mode's class, what the call does to its target. A click
// (or a key that activates, or a newline typed into a field) that submits
// a form, follows a link to another origin, opens a download or hits a
// control named like pay, buy, delete, send, transfer, confirm or publish
// is high; so is a navigation to another origin and a page tool that
// submits a form by itself. Typing, selecting, ticking, keys that submit
// nothing and clicks that stay on the page are medium. execute_js,
// upload and changes of the policy or the redaction are sensitive. A
// click whose element could not be read is high: what cannot be seen is
// never waved through. What the page's own script does on a click is not
// seen: the tier reads what the page declares (docs/SECURITY.md).

// look is one action of a call with its element as the page shows it.
type look struct {
	what string
	args *tools.Args
	seen actions.Seen // its target (HowClick, HowEnter, HowSubmit), or named only
	how  string       // what was asked of the target ("": named only)
}

// howOf says what the gate must ask of an action's target to know its
// risk ("" when its words are all it needs).
func howOf(what string, a *tools.Args) string {
	switch what {
	case "click":
		return actions.HowClick
	case "key_press":
		if activates(a.Keys) {
			return actions.HowEnter
		}
	case "type":
		if strings.ContainsAny(a.Text, "\r\n") { // a newline in a one-line field presses Enter
			return actions.HowEnter
		}
	case "fill_form":
		if a.Submit {
			return actions.HowSubmit
		}
	}
	return ""
}

// activates reports keys that activate what has focus: Enter, Space.
func activates(keys string) bool {
	ks, err := actions.ParseKeys(keys)
	if err != nil {
		return true // the call will fail; never guess it harmless
	}
	for _, k := range ks {
		if k.Key.Key == "Enter" || k.Key.Key == " " {
			return true
		}
	}
	return false
}

// lookAt names an action's target and, when its risk depends on it, asks
// what activating it does: one round trip in the tab's queue.
func (g *Gate) lookAt(ctx context.Context, tab int, what string, a *tools.Args) look {
	l := look{what: what, args: a, how: howOf(what, a)}
	t := actions.Target{Ref: a.Ref, Selector: a.Selector, Frame: a.Frame}
	if what == "fill_form" {
		if l.how == "" || len(a.Fields) == 0 {
			return l
		}
		f := a.Fields[len(a.Fields)-1] // its form is the one submitted
		t = actions.Target{Ref: f.Ref, Selector: f.Selector, X: f.X, Y: f.Y, Frame: a.Frame}
	} else if l.how != "" {
		t.X, t.Y = a.X, a.Y
	}
	l.seen = g.cfg.Describe(ctx, tab, t, l.how)
	return l
}

// risky names controls the issue calls high whatever they submit: what a
// person would not want clicked unread.
var risky = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(pay|pays|paying|payment|payments|buy|buys|buying|purchase|purchases|delete|deletes|deleting|send|sends|sending|transfer|transfers|transferring|confirm|confirms|confirming|publish|publishes|publishing)\b`)
})

// stems maps each word risky matches to the word a plan names.
var stems = sync.OnceValue(func() map[string]string {
	return map[string]string{"pays": "pay", "paying": "pay", "payment": "pay", "payments": "pay", "buys": "buy", "buying": "buy",
		"purchase": "buy", "purchases": "buy", "deletes": "delete", "deleting": "delete", "sends": "send", "sending": "send",
		"transfers": "transfer", "transferring": "transfer", "confirms": "confirm", "confirming": "confirm", "publishes": "publish",
		"publishing": "publish"}
})

// RiskyWords are the words a plan may name for high-risk controls.
var RiskyWords = []string{"buy", "confirm", "delete", "pay", "publish", "send", "transfer"}

// namedWord is the risky word a control's description holds, or "".
func namedWord(desc string) string {
	m := risky().FindString(desc)
	if m == "" {
		return ""
	}
	w := strings.ToLower(m)
	if s, ok := stems()[w]; ok {
		return s
	}
	return w
}

// reasons says what makes one action high-risk; page is the origin of
// the page it acts on.
func reasons(l look, page string) []approval.Reason {
	if l.how == "" {
		return nil
	}
	var out []approval.Reason
	add := func(kind, to, why string) {
		out = append(out, approval.Reason{Mode: l.what, Kind: kind, To: to, Why: why})
	}
	e := l.seen.Effect
	targeted := l.args.Ref != "" || l.args.Selector != "" || l.args.X != nil || l.what == "fill_form"
	switch {
	case e.Frame:
		return append(out, approval.Reason{Mode: l.what, Kind: approval.RiskUnseen, Why: "it acts inside a frame, where what it does cannot be read"})
	case !e.Found && (targeted || l.what == "click"):
		return append(out, approval.Reason{Mode: l.what, Kind: approval.RiskUnseen, Why: "its element could not be read from the page (wait_for it, then call again)"})
	}
	if e.Submits {
		to := OriginOf(e.Action)
		form := "a form"
		if e.Form != "" {
			form = "form " + quoted(e.Form)
		}
		add(approval.RiskSubmit, to, fmt.Sprintf("submits %s to %s%s", form, orNoOrigin(to), elsewhere(to, page)))
	}
	if to := OriginOf(e.Href); e.Href != "" && to != "" {
		switch {
		case e.Download:
			add(approval.RiskDownload, to, fmt.Sprintf("downloads %s from %s", fileOf(e.Href), to))
		case to != page:
			add(approval.RiskLeave, to, "follows a link to "+to+", another origin")
		}
	}
	if w := namedWord(l.seen.Desc); w != "" {
		add(approval.RiskNamed, w, fmt.Sprintf("%s a control named like %q: %s", verbOf(l.what), w, l.seen.Desc))
	}
	return out
}

func verbOf(what string) string {
	switch what {
	case "click":
		return "clicks"
	case "type":
		return "types a line break into"
	}
	return "presses keys on"
}

// elsewhere notes a destination on another origin than the page's.
func elsewhere(to, page string) string {
	if to != "" && to != page {
		return ", another origin"
	}
	return ""
}

func orNoOrigin(o string) string {
	if o == "" {
		return "no web origin"
	}
	return o
}

// fileOf names a download by the last part of its address.
func fileOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || path.Base(u.Path) == "/" || path.Base(u.Path) == "." {
		return "a file"
	}
	return quoted(path.Base(u.Path))
}

// navReason is a navigation's risk: high when it leaves the page's origin
// for another. Opening a site from no page (a new tab, about:blank)
// leaves nothing: it is medium, and a grant or plan covers it only on
// that site, like any call there.
func navReason(what, dest, from string) []approval.Reason {
	to, fromOrigin := OriginOf(dest), OriginOf(from)
	if to == "" || fromOrigin == "" || to == fromOrigin {
		return nil
	}
	return []approval.Reason{{Mode: what, Kind: approval.RiskLeave, To: to, Why: "goes to " + to + ", another origin"}}
}

// riskOf is a call's risk, from its class, its looks (each action with
// its element) and, for navigation and history, where it goes.
func (g *Gate) riskOf(ctx context.Context, c *mcpserver.Call, p plan, w where, looks []look) *approval.Risk {
	mode := c.Mode.Name
	switch {
	case p.class == tools.Sensitive:
		return &approval.Risk{Tier: approval.Sensitive, Why: c.Mode.Why}
	case c.Mode.Plan:
		return &approval.Risk{Tier: approval.Sensitive, Why: "approving it lets the calls it lists run without asking you until it ends"}
	case policy.AlwaysAsk(c.Mode.Key()):
		return &approval.Risk{Tier: approval.Sensitive, Why: "changes a guard (" + mode + ")"}
	case !c.Mode.DrivesPage:
		return &approval.Risk{Tier: approval.Medium}
	}
	var rs []approval.Reason
	switch {
	case c.Mode.Tab.Destination():
		rs = navReason(mode, c.Args.URL, g.from(c))
	case c.Mode.Replay == tools.ReplayBack || c.Mode.Replay == tools.ReplayForward:
		if w.scope.TabID != 0 {
			u := g.cfg.History(ctx, w.scope.TabID, map[tools.Replay]int{tools.ReplayBack: -1, tools.ReplayForward: 1}[c.Mode.Replay])
			rs = navReason(mode, u, g.cfg.Tabs.URL(w.scope.TabID))
		}
	case c.Mode.PageTool:
		if p.pageHigh {
			rs = []approval.Reason{{Mode: mode, Kind: approval.RiskSubmit, To: w.scope.Origin, Why: "the page's tool submits a form by itself"}}
		}
	}
	for _, l := range looks {
		rs = append(rs, reasons(l, w.scope.Origin)...)
	}
	if len(rs) == 0 {
		return &approval.Risk{Tier: approval.Medium}
	}
	whys := make([]string, len(rs))
	for i, r := range rs {
		whys[i] = r.Why
	}
	return &approval.Risk{Tier: approval.High, Why: strings.Join(whys, "; "), Reasons: rs}
}
