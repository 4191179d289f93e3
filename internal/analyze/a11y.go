package analyze

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

//go:embed a11y.js
var a11yJS string

var a11yFn = script(a11yJS)

// A11yReport is analyze accessibility's answer (and what generate sarif
// and page_issues are built from): axe-core's violations of the WCAG rules
// of one level, worst first.
type A11yReport struct {
	TabID      int         `json:"tab_id"`
	URL        string      `json:"url"`
	Level      string      `json:"wcag_level"`
	Engine     string      `json:"engine"` // axe-core 4.14.1
	Tags       []string    `json:"tags"`   // the axe tags run (wcag2a, wcag2aa, …)
	Violations []Violation `json:"violations"`
	// Elements counts the failing elements of every rule; Listed those
	// listed (limit cuts the lists, never the counts).
	Elements    int `json:"elements"`
	Listed      int `json:"listed"`
	NeedsReview int `json:"needs_review"` // rules axe could not decide (check by hand)
	Passed      int `json:"passed_rules"`
	// HiddenDropped counts characters of hidden page text left out.
	HiddenDropped int            `json:"hidden_dropped,omitempty"`
	HiddenReasons map[string]int `json:"hidden_reasons,omitempty"` // HiddenDropped by reason (internal/visible)
	// PageMS is the time axe-core ran in the page.
	PageMS float64 `json:"page_ms"`
}

// Violation is one axe rule the page fails.
type Violation struct {
	ID          string     `json:"id"`
	Impact      string     `json:"impact"` // critical, serious, moderate, minor
	Help        string     `json:"help"`
	Description string     `json:"description"`
	HelpURL     string     `json:"help_url"`
	WCAG        []string   `json:"wcag"`
	Count       int        `json:"count"`
	Nodes       []A11yNode `json:"nodes"`
}

// A11yNode is one failing element: its ref when the latest snapshot named
// it, always a selector.
type A11yNode struct {
	Ref      refNum `json:"ref,omitempty"`
	Selector string `json:"selector"`
	HTML     string `json:"html"`
	Summary  string `json:"summary"` // what to fix
}

var impactRank = map[string]int{"critical": 4, "serious": 3, "moderate": 2, "minor": 1}

// a11yOpts are the page script's options.
type a11yOpts struct {
	Level    string `json:"level"`
	Selector string `json:"selector,omitempty"`
	MaxNodes int    `json:"max_nodes"`
}

// audit runs axe-core in the tab's world (injecting it first when the
// world lacks it) and returns its report, every list sorted worst first.
func (a *Analyzer) audit(ctx context.Context, p *tabPage, o a11yOpts) (*A11yReport, error) {
	var raw struct {
		A11yReport
		Missing bool   `json:"missing"`
		Version string `json:"version"`
	}
	for attempt := 0; ; attempt++ {
		raw.Missing = false
		if err := p.call(ctx, a11yFn(), o, &raw); err != nil {
			return nil, err
		}
		if !raw.Missing {
			break
		}
		if attempt > 0 {
			return nil, &tools.Error{Code: "page_error", Retryable: true, Message: fmt.Sprintf("axe-core did not stay loaded in tab %d (it navigated?); retry", p.tab)}
		}
		if err := a.inject(ctx, p); err != nil {
			return nil, err
		}
	}
	r := raw.A11yReport
	r.TabID, r.Level, r.Engine = p.tab, o.Level, "axe-core "+raw.Version
	sort.SliceStable(r.Violations, func(i, j int) bool {
		vi, vj := r.Violations[i], r.Violations[j]
		if impactRank[vi.Impact] != impactRank[vj.Impact] {
			return impactRank[vi.Impact] > impactRank[vj.Impact]
		}
		return vi.Count > vj.Count
	})
	for i := range r.Violations {
		v := &r.Violations[i]
		r.Elements += v.Count
		for j := range v.Nodes {
			v.Nodes[j].Ref = a.ref(p.tab, v.Nodes[j].Ref)
		}
	}
	return &r, nil
}

// inject asks the extension to run its vendored axe-core in the world.
func (a *Analyzer) inject(ctx context.Context, p *tabPage) error {
	_, err := a.cfg.Link.Call(ctx, "cdp.inject", map[string]any{"tab_id": p.tab, "context_id": p.ec, "script": "axe"})
	var pe *protocol.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Code == "unknown_method":
		return tools.Errorf(tools.CodeNotAvailable, "the connected extension cannot run axe-core (it is older than this daemon); reload the Gasoline extension")
	case errors.As(err, &pe) && pe.Code == "unavailable":
		return tools.Errorf(tools.CodeNotAvailable, "%s", pe.Message)
	}
	return tabs.ToolError(err)
}

// levelOf reads wcag_level (default AA).
func levelOf(c *mcpserver.Call) string {
	if l := c.Args.WCAGLevel; l != "" {
		return l
	}
	return "AA"
}

func (a *Analyzer) accessibility(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.release()
	r, err := a.audit(ctx, p, a11yOpts{Level: levelOf(c), Selector: c.Args.Selector, MaxNodes: 50})
	if err != nil {
		return nil, err
	}
	r.Listed = listNodes(r.Violations, limitOf(c, 100, 1000))
	return pageResult(a11yText(r), r, r.page())
}

// listNodes cuts the element lists to limit elements in all, worst rule
// first, every rule keeping at least one; it returns how many remain.
func listNodes(vs []Violation, limit int) int {
	left, listed := limit, 0
	for i := range vs {
		keep := min(len(vs[i].Nodes), max(left, 1))
		vs[i].Nodes = vs[i].Nodes[:keep]
		left -= keep
		listed += keep
	}
	return listed
}

func a11yText(r *A11yReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d WCAG %s rule(s) fail on %d element(s) (%s; %d rule(s) need a manual check)", r.TabID, len(r.Violations), r.Level, r.Elements, r.Engine, r.NeedsReview)
	if r.URL != "" {
		fmt.Fprintf(&b, " of %s", r.URL)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n- [%s] %s: %s (%d)", v.Impact, v.ID, v.Help, v.Count)
		for _, n := range v.Nodes {
			fmt.Fprintf(&b, "\n  %s%s", n.Selector, refSuffix(n.Ref))
		}
		if more := v.Count - len(v.Nodes); more > 0 {
			fmt.Fprintf(&b, "\n  … %d more", more)
		}
	}
	if r.Listed < r.Elements {
		fmt.Fprintf(&b, "\n(%d of %d elements listed: pass a larger limit for more)", r.Listed, r.Elements)
	}
	if len(r.Violations) == 0 {
		b.WriteString("\nno violations found by the automated rules; they catch part of WCAG only")
	}
	return b.String()
}
