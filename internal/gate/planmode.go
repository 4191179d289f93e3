package gate

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Interact plan (its definition says tools.Mode.Plan): the agent
// proposes what it means to do on a few sites, and the user approves it
// once (internal/approval/plan.go says what a plan covers). The gate
// checks the proposal and words the prompt; the policy can never
// pre-approve it (policy.AlwaysAsk).

// DefaultPlanMinutes is a plan's length when the agent names none.
const DefaultPlanMinutes = 30

// maxSummary bounds a plan's summary: a person reads all of it.
const maxSummary = 1000

// proposalOf checks interact plan's arguments and returns the plan the
// user will see; an error refuses the call before anything is asked.
func proposalOf(c *mcpserver.Call) (*approval.PlanProposal, *tools.Error) {
	a := &c.Args
	pp := &approval.PlanProposal{Summary: strings.TrimSpace(a.Intent), Minutes: a.Minutes}
	if pp.Minutes == 0 {
		pp.Minutes = DefaultPlanMinutes
	}
	switch {
	case pp.Summary == "":
		return nil, planErr("intent is empty: say in a sentence or two what you mean to do, as the user will read it")
	case utf8.RuneCountInString(pp.Summary) > maxSummary:
		return nil, planErr("intent is %d characters; the user reads all of it: keep it under %d", utf8.RuneCountInString(pp.Summary), maxSummary)
	case len(a.Origins) == 0 || len(a.Origins) > approval.MaxPlanOrigins:
		return nil, planErr("origins: name 1 to %d exact origins (https://shop.example, http://127.0.0.1:8888), not %d", approval.MaxPlanOrigins, len(a.Origins))
	case len(a.Actions) == 0:
		return nil, planErr("actions: name the kinds of action the plan covers, of %s", strings.Join(PlanActions(), ", "))
	case pp.Minutes < 1 || pp.Minutes > 480:
		return nil, planErr("minutes: 1 to 480, not %d", pp.Minutes)
	case len(a.High) > approval.MaxPlanHigh:
		return nil, planErr("high: at most %d items", approval.MaxPlanHigh)
	}
	for _, o := range a.Origins {
		c, err := approval.PlanOrigin(o)
		if err != nil {
			return nil, planErr("%v", err)
		}
		if !slices.Contains(pp.Origins, c) {
			pp.Origins = append(pp.Origins, c)
		}
	}
	for _, m := range a.Actions {
		if !slices.Contains(PlanActions(), m) {
			return nil, planErr("actions: %q is not one a plan may cover; it may cover %s (execute_js and upload are always approved alone)", m, strings.Join(PlanActions(), ", "))
		}
		if !slices.Contains(pp.Actions, m) {
			pp.Actions = append(pp.Actions, m)
		}
	}
	for i, h := range a.High {
		ph, e := highOf(h, pp)
		if e != nil {
			e.Message = fmt.Sprintf("high item %d: %s", i+1, e.Message)
			return nil, e
		}
		pp.High = append(pp.High, ph)
	}
	return pp, nil
}

// highOf checks one high-risk item a plan names.
func highOf(h tools.PlanItem, pp *approval.PlanProposal) (approval.PlanHigh, *tools.Error) {
	ph := approval.PlanHigh{Mode: h.What, Kind: h.Risk, To: strings.TrimSpace(h.Target)}
	if !slices.Contains(pp.Actions, h.What) {
		return ph, planErr("what %q is not among the plan's actions", h.What)
	}
	verb := lowerFirst(modeWords(h.What))
	switch h.Risk {
	case approval.RiskNamed:
		ph.To = strings.ToLower(ph.To)
		if !slices.Contains(RiskyWords, ph.To) {
			return ph, planErr("risk named: target is the word a control's name holds, one of %s", strings.Join(RiskyWords, ", "))
		}
		ph.Words = fmt.Sprintf("%s, on controls named like %q", verb, ph.To)
	case approval.RiskSubmit, approval.RiskDownload:
		if ph.To != "" {
			o, err := approval.PlanOrigin(ph.To)
			if err != nil || !slices.Contains(pp.Origins, o) {
				return ph, planErr("risk %s: target must be one of the plan's origins (or empty: any of them)", h.Risk)
			}
			ph.To = o
		}
		where := "any of the plan's origins"
		if ph.To != "" {
			where = ph.To
		}
		what := map[string]string{approval.RiskSubmit: "submitting forms to", approval.RiskDownload: "downloading files from"}[h.Risk]
		ph.Words = fmt.Sprintf("%s, %s %s", verb, what, where)
	default:
		return ph, planErr("risk %q: name submit, download or named (a link or navigation to one of the plan's origins needs no item)", h.Risk)
	}
	return ph, nil
}

func planErr(format string, args ...any) *tools.Error {
	e := tools.Errorf(tools.CodeInvalidArgument, format, args...)
	e.NextAction = tools.Describe("interact", "plan")
	return e
}

// PlanActions are the interact modes a plan may cover: every mutating
// one but the plan itself. Sensitive modes (execute_js, upload) are
// always approved alone.
func PlanActions() []string {
	var out []string
	t, _ := tools.Get("interact")
	for _, m := range t.Modes {
		if m.Class == tools.Mutating && !m.Plan {
			out = append(out, m.Name)
		}
	}
	return out
}

// planWords is the plan's prompt: the agent's summary as its words, then
// what it covers, for how long, and what still asks.
func planWords(pp *approval.PlanProposal) Words {
	kinds := make([]string, len(pp.Actions))
	for i, m := range pp.Actions {
		kinds[i] = lowerFirst(modeWords(m))
	}
	sites := "It may act on " + strings.Join(pp.Origins, ", ") + "."
	if slices.ContainsFunc(pp.Origins, func(o string) bool { return strings.Contains(o, "://*.") }) {
		sites = strings.TrimSuffix(sites, ".") + " (a *. origin: that site and its subdomains)."
	}
	notes := []string{
		sites,
		"Kinds of action: " + strings.Join(kinds, "; ") + ".",
		fmt.Sprintf("For %s, until you revoke it in the Gasoline panel (or with gasoline-host revoke), or until the session ends.", plural(pp.Minutes, "minute", "minutes")),
	}
	if len(pp.High) > 0 {
		notes = append(notes, "High-risk actions it names run without asking only if you tick them.")
	}
	notes = append(notes, "Still asks every time: anything on another site, high-risk actions not ticked (forms that submit, downloads, controls named like pay, buy, delete, send, transfer, confirm or publish, links to other origins), scripts, uploads and changes of Gasoline's guards.")
	w := Words{Target: "the agent's plan, in its words: " + quoted(pp.Summary), Notes: notes}
	if len(pp.Summary) > maxQuoted { // the line quotes only its start
		w.Detail, w.DetailLabel = pp.Summary, "The agent's words, whole"
	}
	return w
}

// modeWords are an interact mode's plain words (its definition's).
func modeWords(name string) string {
	if m, ok := tools.Lookup("interact", name); ok {
		return m.Words
	}
	return name
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
