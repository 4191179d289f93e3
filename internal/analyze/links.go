package analyze

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// analyze link_health checks the page's links from the daemon with a
// plain HTTP client: no cookies (the daemon never holds the user's), HEAD
// first and GET when a server refuses HEAD, redirects followed by hand so
// that every hop is checked against the rules below. It is bounded in
// count (limit), concurrency (linkWorkers), per request (linkTimeout) and
// in all (the call's timeout_ms); links it had no time for are reported
// unchecked, never guessed.
//
// A link is requested only when its origin (and every redirect's) is
// http(s), the same as the page's unless same_origin is false, not one of
// the daemon's own, and not denied by the approval policy for analyze
// link_health. Links to an anchor of the page are checked in the page.

//go:embed links.js
var linksJS string

var linksFn = script(linksJS)

// Link check limits.
const (
	linkWorkers   = 4
	linkTimeout   = 5 * time.Second
	linkRedirects = 5
	maxPageLinks  = 2000
)

// Link states.
const (
	LinkOK         = "ok"
	LinkBroken     = "broken"     // 404, 410, 5xx, other 4xx, network error, missing anchor
	LinkRestricted = "restricted" // 401/403: needs a login the check does not carry
	LinkRedirect   = "redirect"   // ends in a redirect it may not follow
	LinkLimited    = "rate_limited"
	LinkSkipped    = "skipped"   // not requested: scheme, other origin, policy, the daemon itself
	LinkUnchecked  = "unchecked" // no time or over limit
)

// LinkResult is one distinct link target.
type LinkResult struct {
	URL       string `json:"url"`
	Text      string `json:"text,omitempty"`
	Ref       refNum `json:"ref,omitempty"`
	Count     int    `json:"count"` // links on the page with this target
	State     string `json:"state"`
	Status    int    `json:"status,omitempty"`
	Detail    string `json:"detail,omitempty"`
	FinalURL  string `json:"final_url,omitempty"`
	Redirects int    `json:"redirects,omitempty"`
}

// LinksReport is link_health's answer: problems first.
type LinksReport struct {
	TabID      int            `json:"tab_id"`
	URL        string         `json:"url"`
	SameOrigin bool           `json:"same_origin"`
	Links      []LinkResult   `json:"links"`
	Total      int            `json:"total_links"` // links on the page (targets may repeat)
	States     map[string]int `json:"states"`      // distinct targets per state
}

type pageLink struct {
	URL     string `json:"url"`
	Text    string `json:"text"`
	Ref     refNum `json:"ref"`
	Visible bool   `json:"visible"`
	Anchor  *bool  `json:"anchor"`
}

func (a *Analyzer) linkClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = linkWorkers
	tr.ResponseHeaderTimeout = linkTimeout
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func (a *Analyzer) linkHealth(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	var pg struct {
		URL   string     `json:"url"`
		Links []pageLink `json:"links"`
		Total int        `json:"total"`
	}
	err = p.call(ctx, linksFn(), map[string]int{"max_links": maxPageLinks}, &pg)
	p.release()
	if err != nil {
		return nil, err
	}
	sameOrigin := c.Args.SameOrigin == nil || *c.Args.SameOrigin
	r := &LinksReport{TabID: p.tab, URL: pg.URL, SameOrigin: sameOrigin, Total: pg.Total, States: map[string]int{}}
	targets := a.targets(p.tab, pg.Links)
	lc := &linkCheck{a: a, page: policy.CanonicalOrigin(pg.URL), sameOrigin: sameOrigin}
	var todo []*LinkResult
	for _, t := range targets {
		if t.State == "" {
			if why := lc.refuse(t.URL); why != "" {
				t.State, t.Detail = LinkSkipped, why
			} else if len(todo) < limitOf(c, 100, 1000) {
				todo = append(todo, t)
			} else {
				t.State, t.Detail = LinkUnchecked, "over limit"
			}
		}
	}
	lc.run(ctx, todo)
	for _, t := range targets {
		r.States[t.State]++
		r.Links = append(r.Links, *t)
	}
	order := map[string]int{LinkBroken: 0, LinkRestricted: 1, LinkRedirect: 2, LinkLimited: 3, LinkUnchecked: 4, LinkSkipped: 5, LinkOK: 6}
	sort.SliceStable(r.Links, func(i, j int) bool { return order[r.Links[i].State] < order[r.Links[j].State] })
	return pageResult(linksText(r), r, r.page())
}

// targets merges the page's links by URL (without fragment, except for
// anchors of the page itself, which are settled here).
func (a *Analyzer) targets(tab int, links []pageLink) []*LinkResult {
	var out []*LinkResult
	byURL := map[string]*LinkResult{}
	for _, l := range links {
		key := l.URL
		if l.Anchor == nil {
			key, _, _ = strings.Cut(l.URL, "#")
		}
		t := byURL[key]
		if t == nil {
			t = &LinkResult{URL: key, Text: l.Text, Ref: a.ref(tab, l.Ref)}
			byURL[key] = t
			out = append(out, t)
			if l.Anchor != nil {
				t.State, t.Detail = LinkOK, "anchor on this page"
				if !*l.Anchor {
					t.State, t.Detail = LinkBroken, "no element on this page has this id or name"
				}
			}
		}
		t.Count++
	}
	return out
}

// linkCheck requests links under the rules.
type linkCheck struct {
	a          *Analyzer
	page       string // the page's origin
	sameOrigin bool
}

// refuse says why a URL may not be requested ("" when it may).
func (lc *linkCheck) refuse(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "http" && pu.Scheme != "https" {
		s := "not an http(s) link"
		if err == nil && pu.Scheme != "" {
			s = pu.Scheme + ": link, not checked"
		}
		return s
	}
	o := policy.CanonicalOrigin(u)
	for _, self := range lc.a.cfg.Self {
		if policy.CanonicalOrigin(self) == o {
			return "Gasoline's own daemon, never requested"
		}
	}
	if lc.sameOrigin && o != lc.page {
		return "other origin (pass same_origin:false to check it)"
	}
	if lc.a.cfg.Denied(o) {
		return "the approval policy denies " + o
	}
	return ""
}

// run checks the links, linkWorkers at a time, until ctx ends; those left
// are unchecked.
func (lc *linkCheck) run(ctx context.Context, todo []*LinkResult) {
	jobs := make(chan *LinkResult)
	var wg sync.WaitGroup
	for range min(linkWorkers, len(todo)) {
		wg.Go(func() {
			for t := range jobs {
				lc.check(ctx, t)
			}
		})
	}
	i := 0
feed:
	for ; i < len(todo); i++ {
		select {
		case jobs <- todo[i]:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	for _, t := range todo {
		if t.State == "" {
			t.State, t.Detail = LinkUnchecked, "out of time: raise timeout_ms or lower limit"
		}
	}
}

// check requests one link, following redirects it may follow.
func (lc *linkCheck) check(ctx context.Context, t *LinkResult) {
	u := t.URL
	for hop := 0; ; hop++ {
		status, loc, err := lc.request(ctx, u)
		switch {
		case err != nil && ctx.Err() != nil:
			return // unchecked
		case err != nil:
			t.State, t.Detail = LinkBroken, clipText(err.Error(), 200)
			return
		case status >= 300 && status < 400 && loc != "":
			next, perr := url.Parse(u)
			if perr == nil {
				next, perr = next.Parse(loc)
			}
			if perr != nil {
				t.State, t.Status, t.Detail = LinkBroken, status, "bad redirect location"
				return
			}
			if hop+1 > linkRedirects {
				t.State, t.Status, t.Detail = LinkRedirect, status, "too many redirects"
				return
			}
			if why := lc.refuse(next.String()); why != "" {
				t.State, t.Status, t.FinalURL, t.Detail = LinkRedirect, status, next.String(), "redirect not followed: "+why
				return
			}
			u = next.String()
			t.Redirects++
			continue
		}
		t.Status = status
		if t.Redirects > 0 {
			t.FinalURL = u
		}
		t.State = stateOf(status)
		return
	}
}

func stateOf(status int) string {
	switch {
	case status >= 200 && status < 300:
		return LinkOK
	case status == 401 || status == 403:
		return LinkRestricted
	case status == 429:
		return LinkLimited
	case status >= 300 && status < 400:
		return LinkRedirect
	}
	return LinkBroken
}

// request sends HEAD, or GET when the server refuses HEAD, and returns the
// status and Location.
func (lc *linkCheck) request(ctx context.Context, u string) (int, string, error) {
	status, loc, err := lc.send(ctx, http.MethodHead, u)
	if err == nil && (status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented) {
		return lc.send(ctx, http.MethodGet, u)
	}
	return status, loc, err
}

func (lc *linkCheck) send(ctx context.Context, method, u string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, linkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("User-Agent", "Gasoline-link-health/"+version.Version)
	res, err := lc.a.links.Do(req)
	if err != nil {
		return 0, "", err
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location"), nil
}

func linksText(r *LinksReport) string {
	var b strings.Builder
	scope := "same-origin"
	if !r.SameOrigin {
		scope = "all http(s)"
	}
	fmt.Fprintf(&b, "tab %d: %d link(s), %d distinct target(s), %s checked:", r.TabID, r.Total, len(r.Links), scope)
	for _, s := range []string{LinkOK, LinkBroken, LinkRestricted, LinkRedirect, LinkLimited, LinkSkipped, LinkUnchecked} {
		if n := r.States[s]; n > 0 {
			fmt.Fprintf(&b, " %d %s", n, s)
		}
	}
	for _, l := range r.Links {
		if l.State == LinkOK {
			continue
		}
		fmt.Fprintf(&b, "\n- %s %s", l.State, l.URL)
		if l.Status > 0 {
			fmt.Fprintf(&b, " %d", l.Status)
		}
		if l.Text != "" {
			fmt.Fprintf(&b, " %q", l.Text)
		}
		b.WriteString(refSuffix(l.Ref))
		if l.Detail != "" {
			fmt.Fprintf(&b, ": %s", l.Detail)
		}
		if l.FinalURL != "" && l.State == LinkRedirect {
			fmt.Fprintf(&b, " (to %s)", l.FinalURL)
		}
	}
	return b.String()
}
