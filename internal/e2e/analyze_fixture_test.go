package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// The analyze tests run every analyze mode (and generate sarif) over MCP
// against pages in testdata/pages/analyze whose defects were planted on
// purpose, served by a small site that adds what static files cannot:
// response headers and cookies, a large script, failing endpoints and
// link targets with known statuses.

// an is one MCP session on a chain, with the analyze site.
type an struct {
	*relay
	*client
	site *httptest.Server // testdata/ plus the handlers below
	// other is a second origin (cross-origin links); denied is an origin
	// the approval policy denies to link_health, and deniedHits counts the
	// requests it got (it must get none).
	other, denied *httptest.Server
	deniedHits    atomic.Int64
}

func startAnalyze(t testing.TB, name string, opts ChainOptions) *an {
	t.Helper()
	x := &an{}
	okPage := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<!doctype html><title>ok</title>ok") })
	x.other = httptest.NewServer(okPage)
	t.Cleanup(x.other.Close)
	x.denied = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.deniedHits.Add(1)
		okPage(w, r)
	}))
	t.Cleanup(x.denied.Close)
	if opts.Policy == "" {
		// Local development: everything on loopback is allowed, except that
		// link_health may not touch the denied origin.
		opts.Policy = fmt.Sprintf(`{"version":1,"rules":[{"effect":"allow","class":"*","action":"*","origin":"http://127.0.0.1:*"},`+
			`{"effect":"allow","class":"*","action":"*","origin":"https://127.0.0.1:*"},`+
			`{"effect":"deny","class":"read_only","action":"analyze.link_health","origin":%q}]}`, x.denied.URL)
	}
	x.relay = startRelay(t, opts)
	x.client = x.relay.client(t, name)
	x.site = httptest.NewServer(x.mux())
	t.Cleanup(x.site.Close)
	return x
}

func (x *an) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(RepoRoot(), "testdata"))))
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/analyze/big.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, "/*"+strings.Repeat("x", 300_000-5)+"*/\n")
	})
	mux.HandleFunc("/analyze/api/users/", http.NotFound)
	mux.HandleFunc("/analyze/api/fail", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	mux.HandleFunc("/analyze/api/data", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/analyze/secure", x.securePage)
	mux.HandleFunc("/analyze/links", x.linksPage)
	mux.HandleFunc("/analyze/ok", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/analyze/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/analyze/ok", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/analyze/to-denied", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, x.denied.URL+"/analyze/ok", http.StatusFound)
	})
	mux.HandleFunc("/analyze/private", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusForbidden) })
	mux.HandleFunc("/analyze/error", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/analyze/nohead", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			http.Error(w, "", http.StatusMethodNotAllowed)
			return
		}
		fmt.Fprint(w, "ok")
	})
	return mux
}

// Planted secrets of the security page: the tests check their keys are
// reported and their values never appear in an answer.
const (
	plantedJWT    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	plantedStripe = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	plantedGitHub = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	plantedSID    = "s3ss10n-v4lu3-0f-th3-us3r"
)

// securePage plants security defects: no CSP, no X-Content-Type-Options
// (X-Frame-Options is set); a session cookie scripts can read, a cookie
// without SameSite; secrets in localStorage, sessionStorage and a request
// URL. Loaded with ?access_token=<planted GitHub token>, the page URL
// carries one too. On https it also loads a script and an image over
// plain http (mixed content) from http.
func (x *an) securePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Frame-Options", "DENY")
	http.SetCookie(w, &http.Cookie{Name: "session_id", Value: plantedSID, Path: "/"})
	http.SetCookie(w, &http.Cookie{Name: "theme", Value: "dark", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.SetCookie(w, &http.Cookie{Name: "tracking", Value: "1", Path: "/", SameSite: http.SameSiteStrictMode})
	mixed := ""
	if r.TLS != nil {
		mixed = fmt.Sprintf(`<script src="%s/analyze/big.js"></script><img src="%s/analyze/ok" width="1" height="1" alt="">`, x.other.URL, x.other.URL)
	}
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Secure?</title></head><body>
<h1>Account</h1>%s
<script>
  localStorage.setItem('auth_token', %q);
  localStorage.setItem('theme', 'dark');
  sessionStorage.setItem('payment', 'key %s');
  fetch('/analyze/api/data?api_key=%s&page=2').then(() => { window.fetched = true; });
</script></body></html>`, mixed, plantedJWT, plantedStripe, plantedStripe)
}

// linksPage has links with known outcomes (see TestE2EAnalyzeLinkHealth).
func (x *an) linksPage(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Links</title></head><body>
<h1 id="present">Links</h1>
<ul>
<li><a href="/analyze/ok">OK page</a> and <a href="/analyze/ok#part">again</a></li>
<li><a href="/analyze/missing">Missing page</a></li>
<li><a href="/analyze/moved">Moved page</a></li>
<li><a href="/analyze/private">Private page</a></li>
<li><a href="/analyze/error">Broken server</a></li>
<li><a href="/analyze/nohead">No HEAD</a></li>
<li><a href="/analyze/to-denied">Redirect to a denied host</a></li>
<li><a href="#present">Anchor</a> <a href="#absent">Bad anchor</a></li>
<li><a href="mailto:someone@example.com">Mail</a></li>
<li><a href="%s/analyze/ok">Other origin</a></li>
<li><a href="%s/analyze/ok">Denied origin</a></li>
</ul></body></html>`, x.other.URL, x.denied.URL)
}

// analyze calls analyze what with args and requires success.
func (c *client) analyze(what string, args map[string]any) answer {
	c.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	return c.ok("analyze", m)
}

// analyzeFails calls analyze what and requires a structured error code.
func (c *client) analyzeFails(code, what string, args map[string]any) answer {
	c.t.Helper()
	m := map[string]any{"what": what}
	for k, v := range args {
		m[k] = v
	}
	a := c.call("analyze", m)
	require.True(c.t, a.IsError, "analyze %s %v succeeded: %s", what, args, a.Text)
	require.Equal(c.t, code, a.code(), "analyze %s %v: %s", what, args, a.Text)
	return a
}

// page opens path of the analyze site in a new tab (the session's
// current tab) and returns its id.
func (x *an) page(path string) int {
	x.t.Helper()
	return x.newTab(x.site.URL + path)
}
