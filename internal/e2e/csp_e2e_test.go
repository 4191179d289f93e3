package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page generate csp is tested on, and what its inline parts are: the
// expected hashes are of exactly these texts.
const (
	cspInlineScript = "window.inlineRan = true;"
	cspInlineStyle  = "#inline-styled { color: rgb(0, 0, 255); }"
	cspStyleAttr    = "color: rgb(255, 0, 0)"
	cspHandler      = "window.handlerRan = true"
)

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// cspSites serves the page (site A, which 'self' is) and what it loads
// from another origin (site B); A sends the policy set by setPolicy as a
// Content-Security-Policy header.
type cspSites struct {
	a, b   *httptest.Server
	mu     sync.Mutex
	policy string
}

func (s *cspSites) setPolicy(p string) { s.mu.Lock(); s.policy = p; s.mu.Unlock() }

func startCSPSites(t *testing.T) *cspSites {
	s := &cspSites{}
	b := http.NewServeMux()
	b.HandleFunc("/lib.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		io.WriteString(w, "window.libRan = true;")
	})
	b.HandleFunc("/style.css", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		io.WriteString(w, "#styled { color: rgb(0, 128, 0); }")
	})
	b.HandleFunc("/img.png", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		png.Encode(w, image.NewGray(image.Rect(0, 0, 1, 1)))
	})
	b.HandleFunc("/font.woff2", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "font/woff2")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		io.WriteString(w, "not really a font")
	})
	b.HandleFunc("/data.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		io.WriteString(w, `{"ok":true}`)
	})
	b.HandleFunc("/frame.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!doctype html><p>frame</p><script>parent.postMessage('frame ok', '*')</script>")
	})
	s.b = httptest.NewServer(b)
	t.Cleanup(s.b.Close)
	a := http.NewServeMux()
	a.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.policy != "" && r.URL.Query().Has("enforced") {
			w.Header().Set("Content-Security-Policy", s.policy)
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>CSP</title>
<script src="/app.js"></script>
<script src="%[1]s/lib.js"></script>
<link rel="stylesheet" href="%[1]s/style.css">
<style>%[2]s</style>
</head><body>
<p id="styled">styled from B</p><p id="inline-styled">inline style</p>
<p id="attr-styled" style="%[3]s">style attribute</p>
<button id="handler" onclick="%[4]s">handler</button>
<img id="img" src="%[1]s/img.png" alt="">
<img id="dataimg" alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==">
<iframe id="frame" src="%[1]s/frame.html"></iframe>
<script>%[5]s</script>
</body></html>`, s.b.URL, cspInlineStyle, cspStyleAttr, cspHandler, cspInlineScript)
	})
	a.HandleFunc("/app.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));
window.addEventListener('message', (e) => { if (e.data === 'frame ok') window.frameSaid = true; });
fetch(%[1]q + '/data.json').then((r) => r.json()).then((j) => { window.fetched = j.ok; });
new FontFace('F', 'url(%[1]s/font.woff2)').load().catch(() => {});
const ws = new WebSocket('ws://' + location.host + '/ws');
ws.onmessage = (e) => { window.echoed = e.data; };
ws.onopen = () => ws.send('csp');
`, s.b.URL)
	})
	a.HandleFunc("/ws", wsEcho)
	s.a = httptest.NewServer(a)
	t.Cleanup(s.a.Close)
	return s
}

// cspCheck is what the page managed to do: true when each part loaded or
// ran.
const cspCheck = `(async () => {
  document.getElementById('handler').click();
  const color = (id) => getComputedStyle(document.getElementById(id)).color;
  const img = document.getElementById('img'), data = document.getElementById('dataimg');
  return {
    inline: !!window.inlineRan, lib: !!window.libRan, handler: !!window.handlerRan,
    style: color('styled') === 'rgb(0, 128, 0)', inlineStyle: color('inline-styled') === 'rgb(0, 0, 255)',
    attrStyle: color('attr-styled') === 'rgb(255, 0, 0)',
    img: img.complete && img.naturalWidth === 1, dataImg: data.complete && data.naturalWidth === 1,
    fetched: window.fetched === true, echoed: window.echoed === 'csp', frame: !!window.frameSaid,
    violations: window.violations || [],
  };
})()`

type cspState struct {
	Inline, Lib, Handler, Style, InlineStyle, AttrStyle, Img, DataImg, Fetched, Echoed, Frame bool
	Violations                                                                                []string
}

var cspAllWorked = cspState{true, true, true, true, true, true, true, true, true, true, true, []string{}}

// TestE2EGenerateCSP loads a page that uses scripts, a stylesheet, an
// image, a font, a fetch and a frame from another origin, a data: image, a
// WebSocket to its own origin, an inline script, an inline style, a style
// attribute and an event-handler attribute; generate csp answers the exact
// policy (origins per directive, SHA-256 hashes of the inline parts), and
// served with that policy the page still does all of it with no violation,
// while the same policy less one hash breaks the page (the check can
// fail).
func TestE2EGenerateCSP(t *testing.T) {
	r := startRelay(t, ChainOptions{})
	c := r.client(t, "csp-e2e")
	sites := startCSPSites(t)
	tab := c.newTab(sites.a.URL + "/page.html")
	h := r.hand(t, tab)
	check := func() cspState {
		var st cspState
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			h.eval(cspCheck, &st)
			if st.Fetched && st.Echoed && st.Frame || time.Now().After(deadline) {
				return st
			}
		}
	}
	require.Equal(t, cspAllWorked, check(), "the page works without a policy")
	c.until("network_waterfall", map[string]any{"tab_id": tab}, 30*time.Second, func(a answer) bool {
		return strings.Contains(a.Text, "font.woff2") && strings.Contains(a.Text, "data.json") && strings.Contains(a.Text, "frame.html")
	})

	b := sites.b.URL
	want := strings.Join([]string{
		"default-src 'self'",
		"script-src 'self' " + b + " " + cspHash(cspInlineScript),
		"script-src-attr 'unsafe-hashes' " + cspHash(cspHandler),
		"style-src " + b + " " + cspHash(cspInlineStyle),
		"style-src-attr 'unsafe-hashes' " + cspHash(cspStyleAttr),
		"img-src data: " + b,
		"font-src " + b,
		"connect-src 'self' " + b,
		"frame-src " + b,
		"object-src 'none'",
		"base-uri 'self'",
		"form-action 'self'",
	}, "; ")
	gen := c.ok("generate", map[string]any{"what": "csp", "tab_id": tab})
	t.Logf("generate csp:\n%s", gen.Text)
	assert.Equal(t, "Content-Security-Policy", gen.Data["header"])
	assert.Equal(t, want, gen.Data["policy"])
	assert.Equal(t, sites.a.URL, gen.Data["self"])
	assert.True(t, strings.HasPrefix(gen.Page, "Content-Security-Policy: "+want+"\n"), gen.Text)
	ro := c.ok("generate", map[string]any{"what": "csp", "tab_id": tab, "report_only": true})
	assert.Equal(t, "Content-Security-Policy-Report-Only", ro.Data["header"])
	assert.Equal(t, want, ro.Data["policy"])
	assert.Contains(t, ro.Text, "report-only")

	sites.setPolicy(want)
	c.ok("interact", map[string]any{"what": "navigate", "tab_id": tab, "url": sites.a.URL + "/page.html?enforced=1"})
	assert.Equal(t, cspAllWorked, check(), "served with the generated policy, the page still works")

	broken := strings.Replace(want, " "+cspHash(cspInlineScript), "", 1)
	sites.setPolicy(broken)
	c.ok("interact", map[string]any{"what": "navigate", "tab_id": tab, "url": sites.a.URL + "/page.html?enforced=2"})
	st := check()
	assert.False(t, st.Inline, "without its hash the inline script is blocked")
	assert.Contains(t, st.Violations, "script-src-elem inline")
}
