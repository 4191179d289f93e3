package analyze

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

// analyze error_clusters: the tab's console errors, uncaught exceptions
// and failed requests grouped by cause. Errors group by their message with
// the variable parts (numbers, ids, quoted strings, URLs) taken out and by
// the code location that raised them, so one bug logging many ids is one
// cluster and one message raised from two places is two. Failed requests
// group by method, status and path pattern; an error whose message names
// a failed request's path is linked to it.

// Cluster is one cause. (Its pattern is not called a signature: that
// name is a secret's to the redaction gateway.)
type Cluster struct {
	Kind      string    `json:"kind"`    // error (console or exception) or network
	Pattern   string    `json:"pattern"` // the message with its variable parts as <n>, <id>, <str>, <url>
	Count     int       `json:"count"`
	Distinct  int       `json:"distinct"` // distinct messages (or URLs)
	Examples  []string  `json:"examples"`
	Location  string    `json:"location,omitempty"` // url:line:column of the latest occurrence
	FirstSeen time.Time `json:"first_seen"`
	LastSeen  time.Time `json:"last_seen"`
	// Related are the patterns of failed-request clusters whose path the
	// error's message names.
	Related []string `json:"related,omitempty"`
}

// ClustersReport is error_clusters' answer, the most frequent cause first.
type ClustersReport struct {
	TabID    int       `json:"tab_id"`
	Clusters []Cluster `json:"clusters"`
	Errors   int       `json:"errors"`          // occurrences grouped
	Failed   int       `json:"failed_requests"` // failed requests grouped
	// Missed counts errors evicted from the capture buffers before they
	// could be grouped (observe errors still counts them by message).
	Missed int `json:"missed,omitempty"`
}

// The expressions that take the variable parts out of a message, compiled
// on first use (lazyRE).
var (
	reURL    = lazyRE(`\b[a-z][a-z0-9+.-]*://[^\s'"<>)]+`)
	reQuoted = lazyRE(`'[^']*'|"[^"]*"|` + "`[^`]*`")
	reUUID   = lazyRE(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reHex    = lazyRE(`(?i)\b(0x)?[0-9a-f]*[0-9][0-9a-f]*\b`)
	reNum    = lazyRE(`\d+(\.\d+)?`)
	reSpaces = lazyRE(`\s+`)
)

// lazyRE compiles expr on first use rather than when gasoline-host starts:
// every mode is one binary, and the ones that never analyze (the stdio
// relay, on an agent's clock, and the native host) would compile it at
// each start.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// normalize takes the variable parts out of an error message.
func normalize(msg string) string {
	s := reURL().ReplaceAllString(msg, "<url>")
	s = reQuoted().ReplaceAllString(s, "<str>")
	s = reUUID().ReplaceAllString(s, "<id>")
	s = reHex().ReplaceAllStringFunc(s, func(m string) string {
		if len(m) >= 6 || strings.HasPrefix(strings.ToLower(m), "0x") {
			return "<id>"
		}
		return m
	})
	s = reNum().ReplaceAllString(s, "<n>")
	return strings.TrimSpace(reSpaces().ReplaceAllString(s, " "))
}

// pathPattern is a URL's path with its numeric and id segments
// generalized (/api/users/17 → /api/users/<n>).
func pathPattern(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return u
	}
	segs := strings.Split(p.Path, "/")
	for i, s := range segs {
		switch {
		case s == "":
		case reUUID().MatchString(s):
			segs[i] = "<id>"
		case strings.Trim(s, "0123456789") == "":
			segs[i] = "<n>"
		}
	}
	return strings.Join(segs, "/")
}

func (a *Analyzer) errorClusters(_ context.Context, c *mcpserver.Call) (any, error) {
	tab, err := a.cfg.Tabs.Tab(c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	r := a.clusters(tab)
	if l := limitOf(c, 100, 1000); len(r.Clusters) > l {
		r.Clusters = r.Clusters[:l]
	}
	return pageResult(clustersText(r), r, r.page())
}

// clusters groups the tab's errors and failed requests.
func (a *Analyzer) clusters(tab int) *ClustersReport {
	r := &ClustersReport{TabID: tab, Clusters: []Cluster{}}
	g := grouper{byKey: map[string]*Cluster{}, seen: map[string]map[string]bool{}}
	store := a.cfg.Store
	r.Missed += each(func(after uint64) capture.Page[capture.Exception] {
		return store.Exceptions(tab, after, capture.MaxLimit)
	},
		func(e capture.Exception) { g.error(e.Message, e.URL, e.Line, e.Column, e.Time); r.Errors++ })
	r.Missed += each(func(after uint64) capture.Page[capture.ConsoleEntry] {
		return store.Logs(tab, capture.LogQuery{Level: "error", After: after, Limit: capture.MaxLimit})
	}, func(e capture.ConsoleEntry) { g.error(e.Text, e.URL, e.Line, e.Column, e.Time); r.Errors++ })
	paths := map[string]string{} // a failed request's path → its cluster's pattern
	each(func(after uint64) capture.Page[capture.Request] {
		return store.Network(tab, capture.NetworkQuery{After: after, Limit: capture.MaxLimit, FailedOnly: true})
	}, func(q capture.Request) {
		if pat := g.request(q); pat != "" {
			if p, err := url.Parse(q.URL); err == nil && len(p.Path) > 1 {
				paths[p.Path] = pat
			}
		}
		r.Failed++
	})
	for _, cl := range g.byKey {
		if cl.Kind == "error" {
			relate(cl, paths)
		}
		r.Clusters = append(r.Clusters, *cl)
	}
	sort.Slice(r.Clusters, func(i, j int) bool {
		ci, cj := r.Clusters[i], r.Clusters[j]
		if ci.Count != cj.Count {
			return ci.Count > cj.Count
		}
		return ci.FirstSeen.Before(cj.FirstSeen)
	})
	return r
}

// each pages through a capture query (at most 20 pages of
// capture.MaxLimit) and returns how many entries were evicted unread.
func each[T any](page func(after uint64) capture.Page[T], f func(T)) (missed int) {
	var after uint64
	for range 20 {
		pg := page(after)
		for _, e := range pg.Entries {
			f(e)
		}
		missed += int(pg.Missed)
		if after = pg.Next; !pg.Truncated {
			break
		}
	}
	return missed
}

// grouper collects clusters by key.
type grouper struct {
	byKey map[string]*Cluster
	seen  map[string]map[string]bool // per key: the distinct messages
}

func (g *grouper) cluster(key string, init Cluster) *Cluster {
	cl := g.byKey[key]
	if cl == nil {
		cl = &init
		g.byKey[key], g.seen[key] = cl, map[string]bool{}
	}
	return cl
}

// error counts one error by its normalized message and where it was
// raised.
func (g *grouper) error(msg, url string, line, col int, at time.Time) {
	msg, _, _ = strings.Cut(msg, "\n")
	loc := ""
	if url != "" {
		loc = url + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	}
	pat := normalize(msg)
	k := "error\x00" + pat + "\x00" + loc
	add(g.cluster(k, Cluster{Kind: "error", Pattern: pat, Location: loc, FirstSeen: at}), g.seen[k], msg, 1, at, at)
}

// request counts one failed request by method, status and path pattern,
// and returns the pattern.
func (g *grouper) request(q capture.Request) string {
	status := strconv.Itoa(q.Status)
	if q.Failed {
		status = q.ErrorText
	}
	pat := q.Method + " " + status + " " + pathPattern(q.URL)
	k := "network\x00" + pat
	add(g.cluster(k, Cluster{Kind: "network", Pattern: pat, FirstSeen: q.Start}), g.seen[k], q.URL, 1, q.Start, q.Start)
	return pat
}

// relate links an error cluster to the failed-request clusters whose
// path its messages name.
func relate(cl *Cluster, paths map[string]string) {
	text := strings.Join(cl.Examples, "\n")
	for p, pat := range paths {
		if strings.Contains(text, p) && !slices.Contains(cl.Related, pat) {
			cl.Related = append(cl.Related, pat)
		}
	}
	sort.Strings(cl.Related)
}

// add counts n occurrences of msg in cl.
func add(cl *Cluster, seen map[string]bool, msg string, n int, first, last time.Time) {
	cl.Count += n
	if !seen[msg] {
		seen[msg] = true
		cl.Distinct++
		if len(cl.Examples) < 3 {
			cl.Examples = append(cl.Examples, clipText(msg, 300))
		}
	}
	if first.Before(cl.FirstSeen) {
		cl.FirstSeen = first
	}
	if last.After(cl.LastSeen) {
		cl.LastSeen = last
	}
}

func clustersText(r *ClustersReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d cluster(s) from %d error(s) and %d failed request(s)", r.TabID, len(r.Clusters), r.Errors, r.Failed)
	for _, cl := range r.Clusters {
		fmt.Fprintf(&b, "\n- [%s] %s ×%d", cl.Kind, cl.Pattern, cl.Count)
		if cl.Distinct > 1 {
			fmt.Fprintf(&b, " (%d variants)", cl.Distinct)
		}
		if cl.Location != "" {
			fmt.Fprintf(&b, " at %s", cl.Location)
		}
		for _, rel := range cl.Related {
			fmt.Fprintf(&b, "\n  related: %s", rel)
		}
		for _, ex := range cl.Examples {
			fmt.Fprintf(&b, "\n  e.g. %s", ex)
		}
	}
	if len(r.Clusters) == 0 {
		b.WriteString("\nno errors or failed requests captured in this tab")
	}
	if r.Missed > 0 {
		fmt.Fprintf(&b, "\n(%d older errors were evicted from the buffers before they could be grouped)", r.Missed)
	}
	return b.String()
}
