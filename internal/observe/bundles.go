package observe

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// The window around an error's latest occurrence that a bundle covers, and
// the requests it keeps at most.
const (
	bundleBefore   = 5 * time.Second
	bundleAfter    = time.Second
	bundleRequests = 10
)

// BundlesResult is observe error_bundles' answer.
type BundlesResult struct {
	TabID      int      `json:"tab_id"`
	Bundles    []Bundle `json:"bundles"`
	NextCursor string   `json:"next_cursor"`
	Truncated  bool     `json:"truncated,omitempty"`
	Hidden     int      `json:"hidden,omitempty"` // error groups the noise rules hid
}

// Bundle is one error (its group) with the requests and navigations around
// its latest occurrence: the page it happened on and what the network did
// from 5 s before to 1 s after (failed requests first).
type Bundle struct {
	Error       capture.ErrorGroup   `json:"error"`
	Page        string               `json:"page,omitempty"`
	Requests    []capture.Request    `json:"requests,omitempty"`
	Failed      int                  `json:"failed_requests"`
	Navigations []capture.Navigation `json:"navigations,omitempty"`
}

func (o *Observer) errorBundles(ctx context.Context, c *mcpserver.Call) (any, error) {
	tab, pg, err := o.listed(c)
	if err != nil {
		return nil, err
	}
	groups, hidden := o.visible(o.errorGroupsAfter(tab, pg.after))
	r := BundlesResult{TabID: tab, NextCursor: cursor(pg.after), Bundles: []Bundle{}, Hidden: hidden}
	if len(groups) > pg.limit {
		groups, r.Truncated = groups[:pg.limit], true
	}
	if n := len(groups); n > 0 {
		r.NextCursor = cursor(groups[n-1].LastOrder)
	}
	reqs := allOf(func(after uint64) capture.Page[capture.Request] {
		return o.cfg.Store.Network(tab, capture.NetworkQuery{After: after, Limit: capture.MaxLimit})
	})
	navs := allOf(func(after uint64) capture.Page[capture.Navigation] {
		return o.cfg.Store.Navigations(tab, after, capture.MaxLimit)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d errors with context%s", tab, len(groups), hiddenNote(hidden))
	for _, g := range groups {
		bd := bundle(g, reqs, navs)
		r.Bundles = append(r.Bundles, bd)
		fmt.Fprintf(&b, "\n- [%s] %s ×%d%s at %s", g.Kind, g.Message, g.Count, at(g.URL, g.Line, g.Column), g.LastSeen.Format(clock))
		if bd.Page != "" {
			fmt.Fprintf(&b, "\n  page %s", bd.Page)
		}
		if pg.summary {
			fmt.Fprintf(&b, "\n  %d requests around it, %d failed", len(bd.Requests), bd.Failed)
			continue
		}
		for _, q := range bd.Requests {
			fmt.Fprintf(&b, "\n  %s", requestLine(q))
		}
	}
	page := new(untrusted.Page).AddValue(r.Bundles) // what the page logged and loaded
	if pg.summary {
		for i := range r.Bundles {
			r.Bundles[i].Requests, r.Bundles[i].Navigations = nil, nil
		}
	}
	more(&b, r.Truncated, r.NextCursor)
	return mcpserver.PageResult(b.String(), r, page)
}

// bundle gathers the context of one error group.
func bundle(g capture.ErrorGroup, reqs []capture.Request, navs []capture.Navigation) Bundle {
	bd := Bundle{Error: g}
	from, to := g.LastSeen.Add(-bundleBefore), g.LastSeen.Add(bundleAfter)
	for _, n := range navs {
		if n.Order < g.LastOrder && n.Event == "navigated" {
			bd.Page = n.URL // the latest navigation before the error
		}
		if !n.Time.Before(from) && !n.Time.After(to) {
			bd.Navigations = append(bd.Navigations, n)
		}
	}
	for _, q := range reqs {
		if q.Start.Before(from) || q.Start.After(to) {
			continue
		}
		if q.Failed || q.Status >= 400 {
			bd.Failed++
		}
		bd.Requests = append(bd.Requests, q)
	}
	// Failed first, then the nearest in time; at most bundleRequests.
	slices.SortStableFunc(bd.Requests, func(a, b capture.Request) int {
		fa, fb := a.Failed || a.Status >= 400, b.Failed || b.Status >= 400
		if fa != fb {
			if fa {
				return -1
			}
			return 1
		}
		return cmp.Compare(absDur(a.Start.Sub(g.LastSeen)), absDur(b.Start.Sub(g.LastSeen)))
	})
	if len(bd.Requests) > bundleRequests {
		bd.Requests = bd.Requests[:bundleRequests]
	}
	return bd
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// allOf reads a whole buffer.
func allOf[T any](fetch func(after uint64) capture.Page[T]) []T {
	var out []T
	var after uint64
	for {
		p := fetch(after)
		out = append(out, p.Entries...)
		after = p.Next
		if !p.Truncated || len(p.Entries) == 0 {
			return out
		}
	}
}
