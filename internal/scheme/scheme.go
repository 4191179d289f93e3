// Package scheme is where an agent may go: the one definition of the URL
// schemes an agent's tab, frame or navigation may have (issue 27, "Where
// an agent may go"). An agent may open and act on http: and https: pages
// and about:blank; a frame may also be about:srcdoc, and a page or frame
// may be a blob: URL of a web origin (a page makes those of itself).
// Everything else — file:, javascript:, data:, view-source:, chrome:,
// chrome-extension: (any extension, Gasoline's own panel above all),
// devtools: and the rest — is refused before anything is asked, and
// nothing the user approves or grants re-opens it.
//
// The extension mirrors this list in extension/lib/restricted.js; a test
// walks both with the same cases.
package scheme

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Code is the tool error code of a refusal (the extension's own refusal
// of a page it will not debug has the same code).
const Code = "restricted_page"

// Allowed names the schemes an agent may open, for error messages.
const Allowed = "http:, https: and about:blank"

// ErrRefused is what every refusal wraps.
var ErrRefused = errors.New("scheme: refused")

// Refusal says why a URL is off-limits to an agent. It never quotes the
// URL itself (it may carry secrets); Kind names its kind of page.
type Refusal struct {
	Scheme string // "file:", "chrome-extension:", "" when the URL has none
	Kind   string // "a file on this computer"
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("%s is off-limits to agents: an agent may open only %s pages, and nothing the user approves or grants changes that", r.Kind, Allowed)
}

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (r *Refusal) Unwrap() error { return ErrRefused }

// kinds names the refused schemes a person would recognise. Any other
// scheme is "a <scheme> URL".
var kinds = map[string]string{
	"":                  "an address without a scheme (give a full http:// or https:// URL)",
	"file:":             "a file: URL (a file or folder on this computer)",
	"javascript:":       "a javascript: URL (it runs a script in the page; use interact execute_js, whose whole script the user sees)",
	"data:":             "a data: URL (a page made up by whoever wrote the address)",
	"blob:":             "a blob: URL of another origin",
	"view-source:":      "a view-source: page",
	"about:":            "an about: page other than about:blank (a browser page)",
	"chrome:":           "a chrome:// page (a browser page)",
	"chrome-untrusted:": "a chrome-untrusted:// page (a browser page)",
	"chrome-search:":    "a chrome-search:// page (a browser page)",
	"chrome-error:":     "a chrome-error:// page (a browser error page)",
	"edge:":             "an edge:// page (a browser page)",
	"brave:":            "a brave:// page (a browser page)",
	"opera:":            "an opera:// page (a browser page)",
	"vivaldi:":          "a vivaldi:// page (a browser page)",
	"chrome-extension:": "an extension's page (chrome-extension://, Gasoline's own panel above all)",
	"moz-extension:":    "an extension's page",
	"devtools:":         "a devtools:// page (Chrome DevTools)",
	"filesystem:":       "a filesystem: URL (files a site stored in the browser)",
}

func refuse(scheme string) *Refusal {
	k, ok := kinds[scheme]
	if !ok {
		k = "a " + scheme + " URL"
	}
	return &Refusal{Scheme: scheme, Kind: k}
}

// parse splits raw into its lower-case scheme ("http:") and the parsed
// URL; a URL that does not parse has no usable scheme.
func parse(raw string) (string, *url.URL) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		// A scheme the parser rejects (control characters, a malformed
		// host) is still named when it can be read off the front.
		if i := strings.IndexByte(raw, ':'); i > 0 && validScheme(raw[:i]) {
			return strings.ToLower(raw[:i+1]), nil
		}
		return "", nil
	}
	return strings.ToLower(u.Scheme) + ":", u
}

func validScheme(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// Navigation checks a URL an agent asks to open (navigate, new_tab): http:
// or https: with a host, or about:blank. from is the page the tab shows
// now ("" for a new tab): a blob: URL of from's own web origin is allowed
// too, like the page going to a URL it made.
func Navigation(raw, from string) error {
	s, u := parse(raw)
	switch {
	case u == nil:
		return refuse(s)
	case s == "http:" || s == "https:":
		if u.Host == "" || u.Opaque != "" {
			return &Refusal{Scheme: s, Kind: "an " + s + " URL without a host (give a full http:// or https:// URL)"}
		}
		return nil
	case s == "about:":
		if aboutPage(u) == "blank" {
			return nil
		}
	case s == "blob:":
		if o := blobOrigin(u); o != "" && o == webOrigin(from) {
			return nil
		}
	}
	return refuse(s)
}

// Page checks the URL a tab or frame shows now, before any call acts on
// it or reads it: http:, https:, about:blank, about:srcdoc (a frame's
// inline document) or a blob: URL of a web origin. "" (a tab whose URL is
// not known yet) passes: the extension checks the tab itself before it
// attaches.
func Page(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	s, u := parse(raw)
	switch {
	case u == nil:
		return refuse(s)
	case s == "http:" || s == "https:":
		return nil
	case s == "about:":
		if p := aboutPage(u); p == "blank" || p == "srcdoc" {
			return nil
		}
	case s == "blob:":
		if blobOrigin(u) != "" {
			return nil
		}
	}
	return refuse(s)
}

// aboutPage is "blank" for about:blank, about:blank#x and about:blank?y.
func aboutPage(u *url.URL) string {
	p := u.Opaque
	if p == "" {
		p = u.Path
	}
	return strings.ToLower(p)
}

// blobOrigin is the web origin a blob: URL belongs to
// (blob:https://a.example/uuid → https://a.example), or "".
func blobOrigin(u *url.URL) string {
	inner := u.Opaque
	if inner == "" {
		inner = strings.TrimPrefix(u.String(), "blob:")
	}
	return webOrigin(inner)
}

// webOrigin is an http(s) URL's origin, lower-cased, or "".
func webOrigin(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	s := strings.ToLower(u.Scheme)
	if s != "http" && s != "https" {
		return ""
	}
	return s + "://" + strings.ToLower(u.Host)
}

// ToolError is the agent's error for a refusal, naming what it tried to
// do: "navigate refused: a file: URL … is off-limits to agents …".
func ToolError(what string, err error) *tools.Error {
	var r *Refusal
	if !errors.As(err, &r) {
		return nil
	}
	return &tools.Error{Code: Code, Message: what + " refused: " + r.Error() +
		". Nothing was asked or done; open an http:// or https:// page instead"}
}
