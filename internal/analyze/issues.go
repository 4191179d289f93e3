package analyze

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// analyze page_issues: one ranked list of what is wrong with the page —
// errors and failed requests (error_clusters), accessibility violations
// (accessibility at AA) and security findings (security_audit) — worst
// first. A part that cannot run (no axe in the extension, an unusable
// redaction policy) is named in Skipped; the rest still answers.

// Issue is one problem.
type Issue struct {
	Rank     int    `json:"rank"`
	Severity string `json:"severity"` // critical, high, medium, low
	Category string `json:"category"` // error, network, accessibility, security
	Title    string `json:"title"`
	Detail   string `json:"detail,omitempty"`
	Count    int    `json:"count"`
	Target   string `json:"target,omitempty"` // a ref, selector, URL or key
	// Next is the call that shows the whole story.
	Next *tools.Next `json:"next_action,omitempty"`
}

// IssuesReport is page_issues' answer.
type IssuesReport struct {
	TabID   int      `json:"tab_id"`
	URL     string   `json:"url,omitempty"`
	Issues  []Issue  `json:"issues"`
	Total   int      `json:"total"`
	Skipped []string `json:"skipped,omitempty"`
}

// a11ySeverity maps axe impact to an issue severity.
var a11ySeverity = map[string]string{"critical": "high", "serious": "high", "moderate": "medium", "minor": "low"}

func next(tool, what string) *tools.Next {
	return &tools.Next{Tool: tool, Arguments: map[string]any{"what": what}}
}

func (a *Analyzer) pageIssues(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	tab, err := a.cfg.Tabs.Tab(c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	r := &IssuesReport{TabID: tab, Issues: []Issue{}}
	r.Issues = append(r.Issues, clusterIssues(a.clusters(tab))...)

	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	rep, err := a.audit(ctx, p, a11yOpts{Level: "AA", MaxNodes: 1})
	p.release()
	if err := skippable(err, "accessibility", r); err != nil {
		return nil, err
	}
	if rep != nil {
		r.URL = rep.URL
		for _, v := range rep.Violations {
			is := Issue{Severity: a11ySeverity[v.Impact], Category: "accessibility", Title: v.ID + ": " + v.Help, Count: v.Count,
				Detail: v.Description, Next: next("analyze", "accessibility")}
			if len(v.Nodes) > 0 {
				is.Target = strings.TrimSpace(string(v.Nodes[0].Ref) + " " + v.Nodes[0].Selector)
			}
			r.Issues = append(r.Issues, is)
		}
	}
	sec, err := a.security(ctx, c)
	if err := skippable(err, "security", r); err != nil {
		return nil, err
	}
	if sec != nil {
		r.URL = sec.URL
		for _, f := range sec.Findings {
			target := f.Key
			if f.Where != "" {
				target = strings.TrimSpace(target + " " + f.Where)
			}
			r.Issues = append(r.Issues, Issue{Severity: f.Severity, Category: "security", Title: f.Title, Count: 1, Target: target,
				Detail: f.Class, Next: next("analyze", "security_audit")})
		}
	}
	rank(r)
	r.Total = len(r.Issues)
	if l := limitOf(c, 100, 1000); len(r.Issues) > l {
		r.Issues = r.Issues[:l]
	}
	return pageResult(issuesText(r), r, r.page())
}

// skippable records a part that could not run for a reason the other
// parts do not share (not_available, redaction_failed); other errors (the
// tab closed, a timeout) end the call.
func skippable(err error, part string, r *IssuesReport) error {
	var te *tools.Error
	if err == nil {
		return nil
	}
	if errors.As(err, &te) && (te.Code == tools.CodeNotAvailable || te.Code == "redaction_failed") {
		r.Skipped = append(r.Skipped, part+": "+te.Message)
		return nil
	}
	return err
}

// clusterIssues turns error clusters into issues: uncaught exceptions and
// 5xx or failed loads are high, other errors and 4xx medium.
func clusterIssues(cr *ClustersReport) []Issue {
	var out []Issue
	for _, cl := range cr.Clusters {
		is := Issue{Category: cl.Kind, Title: cl.Pattern, Count: cl.Count, Target: cl.Location}
		switch cl.Kind {
		case "network":
			is.Severity, is.Next = "medium", next("observe", "network_waterfall")
			if f := strings.Fields(cl.Pattern); len(f) > 1 && (strings.HasPrefix(f[1], "5") || strings.HasPrefix(f[1], "net::")) {
				is.Severity = "high"
			}
			if len(cl.Examples) > 0 {
				is.Target = cl.Examples[0]
			}
		default:
			is.Severity, is.Next = "medium", next("observe", "error_bundles")
			if strings.HasPrefix(cl.Pattern, "Uncaught") {
				is.Severity = "high"
			}
			if len(cl.Related) > 0 {
				is.Detail = "related: " + strings.Join(cl.Related, "; ")
			}
		}
		out = append(out, is)
	}
	return out
}

// rank orders issues by severity, then count, and numbers them.
func rank(r *IssuesReport) {
	sort.SliceStable(r.Issues, func(i, j int) bool {
		a, b := r.Issues[i], r.Issues[j]
		if severityRank[a.Severity] != severityRank[b.Severity] {
			return severityRank[a.Severity] > severityRank[b.Severity]
		}
		return a.Count > b.Count
	})
	for i := range r.Issues {
		r.Issues[i].Rank = i + 1
	}
}

func issuesText(r *IssuesReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d issue(s)", r.TabID, r.Total)
	if r.URL != "" {
		fmt.Fprintf(&b, " on %s", r.URL)
	}
	for _, is := range r.Issues {
		fmt.Fprintf(&b, "\n%d. [%s] %s: %s", is.Rank, is.Severity, is.Category, is.Title)
		if is.Count > 1 {
			fmt.Fprintf(&b, " ×%d", is.Count)
		}
		if is.Target != "" {
			fmt.Fprintf(&b, " (%s)", is.Target)
		}
	}
	if len(r.Issues) < r.Total {
		fmt.Fprintf(&b, "\n… %d more: pass a larger limit", r.Total-len(r.Issues))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "\nnot checked: %s", s)
	}
	return b.String()
}
