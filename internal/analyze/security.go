package analyze

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

//go:embed security.js
var securityJS string

var securityFn = script(securityJS)

// SecurityReport is security_audit's answer. It never holds a secret's
// value: storage items and URL parameters are named by key, cookies by
// name.
type SecurityReport struct {
	TabID    int       `json:"tab_id"`
	URL      string    `json:"url"`
	HTTPS    bool      `json:"https"`
	Findings []Finding `json:"findings"`
	Cookies  []Cookie  `json:"cookies"`
	// Headers are the main document's security headers as captured;
	// HeadersSeen is false when capture did not see the document's
	// response (reload the page to check them).
	Headers     map[string]string `json:"headers,omitempty"`
	HeadersSeen bool              `json:"headers_seen"`
}

// Finding is one problem, worst first in a report.
type Finding struct {
	Severity string `json:"severity"` // high, medium, low
	Category string `json:"category"` // cookie, storage, url, mixed_content, header
	Title    string `json:"title"`
	// Key names what holds the problem: a cookie, storage key, URL
	// parameter or header.
	Key   string `json:"key,omitempty"`
	Class string `json:"class,omitempty"` // the kind of secret (jwt, password, …)
	Where string `json:"where,omitempty"` // a URL without its parameters, or a storage area
	Ref   string `json:"ref,omitempty"`
}

// Cookie is a cookie of the page, without its value.
type Cookie struct {
	Name           string `json:"name"`
	Domain         string `json:"domain"`
	HTTPOnly       bool   `json:"http_only"`
	Secure         bool   `json:"secure"`
	SameSite       string `json:"same_site,omitempty"`
	ReadableScript bool   `json:"readable_by_script"`
	SecretName     bool   `json:"secret_name,omitempty"` // its name says it holds a session or credential
}

var severityRank = map[string]int{"critical": 4, "high": 3, "medium": 2, "low": 1}

type securityPage struct {
	URL     string      `json:"url"`
	HTTPS   bool        `json:"https"`
	Local   [][2]string `json:"local"`
	Session [][2]string `json:"session"`
	Mixed   []struct {
		Tag, Kind, URL, Selector string
		Ref                      int
	} `json:"mixed"`
	MetaCSP []string `json:"meta_csp"`
}

func (a *Analyzer) securityAudit(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	r, err := a.security(ctx, c)
	if err != nil {
		return nil, err
	}
	return pageResult(securityText(r), r, r.page())
}

// security runs the audit on the call's tab.
func (a *Analyzer) security(ctx context.Context, c *mcpserver.Call) (*SecurityReport, error) {
	e, err := a.cfg.Engine()
	if err != nil {
		return nil, &tools.Error{Code: "redaction_failed", Message: "security_audit finds secrets with the redaction policy, which is not usable (" + err.Error() + "); fix redaction.json and retry"}
	}
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	var pg securityPage
	err = p.call(ctx, securityFn(), map[string]int{"max_items": 500, "max_value": 64 << 10}, &pg)
	var cookies network.GetCookiesResult
	if err == nil {
		cookies, err = cdproto.Call(ctx, p.s, network.GetCookies, network.GetCookiesParams{URLs: []string{pg.URL}})
		err = tabs.ToolError(err)
	}
	p.release()
	if err != nil {
		return nil, err
	}
	r := &SecurityReport{TabID: p.tab, URL: pg.URL, HTTPS: pg.HTTPS, Findings: []Finding{}, Cookies: []Cookie{}}
	a.auditCookies(e, r, cookies.Cookies)
	a.auditStorage(e, r, "localStorage", pg.Local)
	a.auditStorage(e, r, "sessionStorage", pg.Session)
	reqs := a.documentRequests(p.tab)
	a.auditURLs(e, r, pg.URL, reqs)
	a.auditMixed(r, &pg, reqs)
	a.auditHeaders(r, pg.MetaCSP, reqs)
	sort.SliceStable(r.Findings, func(i, j int) bool {
		return severityRank[r.Findings[i].Severity] > severityRank[r.Findings[j].Severity]
	})
	return r, nil
}

func (a *Analyzer) auditCookies(e *redact.Engine, r *SecurityReport, cs []*network.Cookie) {
	cs = slices.DeleteFunc(slices.Clone(cs), func(c *network.Cookie) bool { return c == nil })
	slices.SortFunc(cs, func(x, y *network.Cookie) int { return strings.Compare(x.Name+"\x00"+x.Domain, y.Name+"\x00"+y.Domain) })
	for _, ck := range cs {
		secret := secretName(e, ck.Name) != ""
		r.Cookies = append(r.Cookies, Cookie{Name: ck.Name, Domain: ck.Domain, HTTPOnly: ck.HTTPOnly, Secure: ck.Secure,
			SameSite: string(ck.SameSite), ReadableScript: !ck.HTTPOnly, SecretName: secret})
		add := func(sev, title string) {
			r.Findings = append(r.Findings, Finding{Severity: sev, Category: "cookie", Title: title, Key: ck.Name})
		}
		if !ck.HTTPOnly {
			if secret {
				add("high", "session or credential cookie readable by scripts (no HttpOnly), so an XSS can steal it")
			} else {
				add("low", "cookie readable by scripts (no HttpOnly)")
			}
		}
		if r.HTTPS && !ck.Secure {
			sev := "medium"
			if secret {
				sev = "high"
			}
			add(sev, "cookie without Secure on an https page, so it is also sent over plain http")
		}
		if ck.SameSite == "" {
			add("low", "cookie without SameSite (browsers default to Lax; set it explicitly)")
		}
	}
}

func (a *Analyzer) auditStorage(e *redact.Engine, r *SecurityReport, area string, items [][2]string) {
	for _, it := range items {
		if class := secretClass(e, it[0], it[1]); class != "" {
			r.Findings = append(r.Findings, Finding{Severity: "high", Category: "storage", Key: it[0], Class: class, Where: area,
				Title: "credential kept in " + area + ", where every script on the origin (and an XSS) can read it"})
		}
	}
}

// documentRequests are the requests of the tab's current document, oldest
// first (nil when capture saw no navigation).
func (a *Analyzer) documentRequests(tab int) []capture.Request {
	doc, ok := a.cfg.Store.Document(tab)
	if !ok {
		return nil
	}
	var out []capture.Request
	each(func(after uint64) capture.Page[capture.Request] {
		return a.cfg.Store.Network(tab, capture.NetworkQuery{After: after, Limit: capture.MaxLimit, Doc: &doc})
	}, func(q capture.Request) { out = append(out, q) })
	return out
}

func (a *Analyzer) auditURLs(e *redact.Engine, r *SecurityReport, page string, reqs []capture.Request) {
	seen := map[string]bool{}
	check := func(u, what string, sev string) {
		found, where := urlSecrets(e, u)
		for _, s := range found {
			k := s.Key + "\x00" + s.Class + "\x00" + where
			if seen[k] {
				continue
			}
			seen[k] = true
			r.Findings = append(r.Findings, Finding{Severity: sev, Category: "url", Key: s.Key, Class: s.Class, Where: where,
				Title: "credential in " + what + ", and URLs end up in history, logs, proxies and Referer headers"})
		}
	}
	check(page, "the page URL", "high")
	for _, q := range reqs {
		check(q.URL, "a request URL ("+q.Method+")", "high")
	}
}

func (a *Analyzer) auditMixed(r *SecurityReport, pg *securityPage, reqs []capture.Request) {
	if !r.HTTPS {
		return
	}
	seen := map[string]bool{}
	for _, m := range pg.Mixed {
		seen[m.URL] = true
		sev := "medium"
		if m.Kind == "active" {
			sev = "high"
		}
		r.Findings = append(r.Findings, Finding{Severity: sev, Category: "mixed_content", Where: m.URL, Ref: a.refName(r.TabID, m.Ref), Key: m.Selector,
			Title: fmt.Sprintf("%s content over plain http on an https page (<%s>)", m.Kind, m.Tag)})
	}
	for _, q := range reqs {
		if !strings.HasPrefix(q.URL, "http://") || seen[q.URL] {
			continue
		}
		seen[q.URL] = true
		title := "request over plain http from an https page (" + q.ResourceType + ")"
		if q.BlockedReason == "mixed-content" {
			title += ", blocked by Chrome"
		}
		r.Findings = append(r.Findings, Finding{Severity: "high", Category: "mixed_content", Where: q.URL, Title: title})
	}
}

// auditHeaders checks the main document's response headers.
func (a *Analyzer) auditHeaders(r *SecurityReport, metaCSP []string, reqs []capture.Request) {
	var doc *capture.Request
	for i := range reqs {
		if q := &reqs[i]; q.ResourceType == "Document" && q.LoaderID == q.ID && q.Status > 0 && q.Status < 300 {
			doc = q
		}
	}
	if doc == nil {
		r.Findings = append(r.Findings, Finding{Severity: "low", Category: "header",
			Title: "the page's response headers were not captured (capture started after it loaded, or the browser revalidated it from its cache), so reload it (interact refresh) and run security_audit again"})
		return
	}
	r.HeadersSeen, r.Headers = true, doc.Headers
	h := doc.Headers
	add := func(sev, key, title string) {
		r.Findings = append(r.Findings, Finding{Severity: sev, Category: "header", Key: key, Title: title})
	}
	csp := h["content-security-policy"]
	switch {
	case csp == "" && len(metaCSP) == 0 && h["content-security-policy-report-only"] != "":
		add("low", "content-security-policy", "Content-Security-Policy is report-only, so nothing is enforced")
	case csp == "" && len(metaCSP) == 0:
		add("medium", "content-security-policy", "no Content-Security-Policy, so injected scripts run unrestricted")
	}
	if r.HTTPS && h["strict-transport-security"] == "" {
		add("medium", "strict-transport-security", "no Strict-Transport-Security on an https page, so a first visit can be downgraded to http")
	}
	if !strings.EqualFold(strings.TrimSpace(h["x-content-type-options"]), "nosniff") {
		add("low", "x-content-type-options", "no X-Content-Type-Options nosniff, so browsers may guess content types")
	}
	if h["x-frame-options"] == "" && !strings.Contains(strings.ToLower(csp), "frame-ancestors") {
		add("medium", "x-frame-options", "no X-Frame-Options nor CSP frame-ancestors, so other sites can frame the page (clickjacking)")
	}
}

// securityText renders the report. Names never precede a colon or an
// equals sign here: to the redaction gateway "cookie: …" or
// "session_id=…" hold a secret value, and it would blank the line.
func securityText(r *SecurityReport) string {
	var b strings.Builder
	scheme := "http"
	if r.HTTPS {
		scheme = "https"
	}
	fmt.Fprintf(&b, "tab %d (%s) has %d finding(s) and %d cookie(s) (values never read)", r.TabID, scheme, len(r.Findings), len(r.Cookies))
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "\n- [%s] %s", f.Severity, f.Title)
		parts := []string{f.Category}
		if f.Key != "" {
			parts = append(parts, "key "+f.Key)
		}
		if f.Class != "" {
			parts = append(parts, "class "+f.Class)
		}
		if f.Where != "" {
			parts = append(parts, "at "+f.Where)
		}
		if f.Ref != "" {
			parts = append(parts, "ref "+f.Ref)
		}
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	return b.String()
}
