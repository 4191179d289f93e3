// Package csp builds a Content-Security-Policy for a page from what it was
// seen to load (generate csp): the origins of its captured requests per
// resource type (script-src, style-src, img-src, font-src, connect-src,
// media-src, frame-src, manifest-src) and SHA-256 hashes of its
// inline scripts, styles, event handlers and style attributes, read from
// the page in an isolated world. The policy is strict by default
// (default-src 'self', object-src 'none', base-uri 'self') and allows
// exactly what was observed; it never adds 'unsafe-inline' or
// 'unsafe-eval'.
package csp

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// Header names.
const (
	Enforce    = "Content-Security-Policy"
	ReportOnly = "Content-Security-Policy-Report-Only"
)

// Input is what a policy is built from.
type Input struct {
	PageURL  string            // the page the policy is for: its origin is 'self'
	Document string            // its loaderId: the id of its own request, redirects included
	Requests []capture.Request // the page's requests (finished and in flight)
	Sockets  []string          // URLs of the WebSockets it opened
	// Inline is the page's inline content; nil when it could not be read.
	Inline     *Inline
	ReportOnly bool
}

// Inline is the inline content of a page that CSP governs, as text to hash.
type Inline struct {
	Scripts     []string `json:"scripts"`       // <script> without src (importmaps too)
	Styles      []string `json:"styles"`        // <style>
	Handlers    []string `json:"handlers"`      // on* attribute values
	StyleAttrs  []string `json:"style_attrs"`   // style attribute values
	JSURLs      int      `json:"js_urls"`       // javascript: links (no hash allows them)
	Unreadable  int      `json:"unreadable"`    // inline items too large to hash here
	Truncated   bool     `json:"truncated"`     // more items than were read
	ElementSeen int      `json:"elements_seen"` // elements scanned
}

// Directive is one directive of the policy with what it allows.
type Directive struct {
	Name    string   `json:"name"`
	Sources []string `json:"sources"`
	// Requests counts the observed requests it allows, by source.
	Requests map[string]int `json:"requests,omitempty"`
}

// Policy is a built policy.
type Policy struct {
	Header     string      `json:"header"`
	Value      string      `json:"policy"`
	Self       string      `json:"self"`
	Directives []Directive `json:"directives"`
	Requests   int         `json:"requests"` // observed requests it covers
	Notes      []string    `json:"notes,omitempty"`
}

// directiveOf maps CDP's resource types to the directive governing them;
// "" is not governed by a fetch directive (the page's own document,
// prefetches, preflights, reports).
var directiveOf = map[string]string{
	"Script": "script-src", "Stylesheet": "style-src", "Image": "img-src", "Font": "font-src",
	"Media": "media-src", "TextTrack": "media-src", "XHR": "connect-src", "Fetch": "connect-src",
	"EventSource": "connect-src", "WebSocket": "connect-src", "Ping": "connect-src", "Manifest": "manifest-src",
}

// order is the directives' order in the policy.
var order = []string{"default-src", "script-src", "script-src-attr", "style-src", "style-src-attr", "img-src", "font-src",
	"connect-src", "media-src", "frame-src", "manifest-src", "object-src", "base-uri", "form-action"}

// Build builds the policy.
func Build(in Input) Policy {
	self := originOf(in.PageURL)
	p := Policy{Header: Enforce, Self: self}
	if in.ReportOnly {
		p.Header = ReportOnly
	}
	dirs := map[string]*Directive{}
	add := func(name, src string, count bool) {
		d := dirs[name]
		if d == nil {
			d = &Directive{Name: name, Requests: map[string]int{}}
			dirs[name] = d
		}
		if !slices.Contains(d.Sources, src) {
			d.Sources = append(d.Sources, src)
		}
		if count {
			d.Requests[src]++
		}
	}
	add("default-src", "'self'", false)
	add("object-src", "'none'", false)
	add("base-uri", "'self'", false)
	add("form-action", "'self'", false)
	other := 0
	for _, r := range in.Requests {
		name := directiveOf[r.ResourceType]
		main := r.MainDocument() || in.Document != "" && r.ID == in.Document
		if r.ResourceType == "Document" && !main {
			name = "frame-src"
		}
		src, ok := source(r.URL, self)
		if !ok {
			continue
		}
		if name == "" {
			if r.ResourceType != "Document" {
				other++
			}
			continue
		}
		add(name, src, true)
		p.Requests++
	}
	for _, u := range in.Sockets {
		if src, ok := source(u, self); ok {
			add("connect-src", src, true)
			p.Requests++
		}
	}
	p.Notes = append(p.Notes, inline(in.Inline, add)...)
	p.Notes = append(p.Notes, "form-action 'self' lets the page's forms post to its own origin only: add the origins they post to")
	if other > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%d requests of other kinds (workers, prefetches, favicons, …) fall under default-src 'self'; add their origins if the page needs them", other))
	}
	p.Directives, p.Value = assemble(dirs)
	if in.ReportOnly {
		p.Notes = append(p.Notes, "report-only: the browser enforces nothing and prints each violation in the console; add report-to (or report-uri) to collect them")
	}
	return p
}

// inline adds the hashes of the page's inline content and says what it
// could not cover.
func inline(in *Inline, add func(name, src string, count bool)) []string {
	if in == nil {
		return []string{"the page's inline scripts and styles could not be read: if it has any, add their hashes ('sha256-…') or a nonce, or they will be blocked"}
	}
	var notes []string
	for _, s := range in.Scripts {
		add("script-src", hash(s), false)
	}
	for _, s := range in.Styles {
		add("style-src", hash(s), false)
	}
	for name, vals := range map[string][]string{"script-src-attr": in.Handlers, "style-src-attr": in.StyleAttrs} {
		if len(vals) == 0 {
			continue
		}
		add(name, "'unsafe-hashes'", false)
		for _, v := range vals {
			add(name, hash(v), false)
		}
	}
	if n := len(in.Scripts) + len(in.Styles) + len(in.Handlers) + len(in.StyleAttrs); n > 0 {
		notes = append(notes, fmt.Sprintf("%d inline scripts, %d inline styles, %d event-handler attributes and %d style attributes are allowed by their SHA-256 hashes: any change to them needs a new hash (moving them to files is better)",
			len(in.Scripts), len(in.Styles), len(in.Handlers), len(in.StyleAttrs)))
	}
	if in.JSURLs > 0 {
		notes = append(notes, fmt.Sprintf("%d javascript: links will be blocked: replace them with event listeners", in.JSURLs))
	}
	if in.Unreadable > 0 || in.Truncated {
		notes = append(notes, "some inline content was too large or too much to hash here: check the console for violations")
	}
	notes = append(notes, "inline content the page adds later, and scripts that ran and were removed, are not covered")
	return notes
}

// assemble orders the directives, drops those that only repeat
// default-src, and writes the policy.
func assemble(dirs map[string]*Directive) ([]Directive, string) {
	var out []Directive
	var parts []string
	for _, name := range order {
		d := dirs[name]
		if d == nil || fallsBack[name] && slices.Equal(d.Sources, []string{"'self'"}) {
			continue // default-src 'self' says it already
		}
		slices.SortFunc(d.Sources, func(a, b string) int { return cmp.Or(rank(a)-rank(b), strings.Compare(a, b)) })
		if len(d.Requests) == 0 {
			d.Requests = nil
		}
		out = append(out, *d)
		parts = append(parts, name+" "+strings.Join(d.Sources, " "))
	}
	return out, strings.Join(parts, "; ")
}

// fallsBack are the directives default-src stands in for when absent.
var fallsBack = map[string]bool{"script-src": true, "style-src": true, "img-src": true, "font-src": true,
	"connect-src": true, "media-src": true, "frame-src": true, "manifest-src": true}

// rank orders sources: keywords, then schemes, then origins, then hashes.
func rank(s string) int {
	switch {
	case strings.HasPrefix(s, "'sha"):
		return 3
	case strings.HasPrefix(s, "'"):
		return 0
	case strings.HasSuffix(s, ":"):
		return 1
	}
	return 2
}

// source is a URL's CSP source: 'self' for the page's origin, a scheme for
// data: and blob:, else the origin. ok is false for what CSP does not
// govern (about:, extension URLs) or cannot parse.
func source(raw, self string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", false
	}
	switch s := strings.ToLower(u.Scheme); s {
	case "data", "blob", "mediastream", "filesystem":
		return s + ":", true
	case "http", "https", "ws", "wss":
		o := originOf(raw)
		if o == "" {
			return "", false
		}
		if o == self || sameSocket(o, self) {
			return "'self'", true
		}
		return o, true
	}
	return "", false
}

// sameSocket reports a ws(s) origin on the page's own host and port: CSP
// Level 3 lets 'self' match it.
func sameSocket(o, self string) bool {
	for _, p := range [][2]string{{"ws://", "http://"}, {"wss://", "https://"}} {
		if rest, ok := strings.CutPrefix(o, p[0]); ok && p[1]+rest == self {
			return true
		}
	}
	return false
}

// originOf is scheme://host[:port] of a URL, default ports left out; "" when
// it has none.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || port == defaultPort[scheme] {
		return scheme + "://" + host
	}
	return scheme + "://" + host + ":" + port
}

var defaultPort = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

// hash is the CSP hash source of inline text: SHA-256 of its UTF-8 bytes.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
