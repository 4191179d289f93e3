package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/slowsite"
)

// The developer-tools tests (emulation, routes, downloads, traces, PDF)
// run over MCP against a relay chain whose site also serves the fixtures
// of internal/slowsite: images and styles the server holds for ?ms=, JSON
// for mock.html to fetch, files to download. Pages are in
// testdata/pages/devtools.

// dt is one MCP session on a relay chain with the developer-tools site.
type dt struct {
	*relay
	*client
}

func startDevtools(t testing.TB, name string, opts ChainOptions) *dt {
	t.Helper()
	r := startRelay(t, opts)
	slowsite.Register(r.site.Config.Handler.(*http.ServeMux))
	t.Cleanup(func() { // a failure shows the daemon's last words
		if !t.Failed() {
			return
		}
		raw, _ := os.ReadFile(filepath.Join(r.Home, "daemon-test.log"))
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		t.Logf("daemon log (tail):\n%s", strings.Join(lines[max(0, len(lines)-60):], "\n"))
	})
	return &dt{relay: r, client: r.client(t, name)}
}

// open opens testdata/pages/devtools/<page> in a new tab of the session.
func (x *dt) open(page string) int {
	x.t.Helper()
	return x.newTab(x.url("pages/devtools/" + page))
}

// emulate calls interact emulate and requires success.
func (c *client) emulate(args map[string]any) answer {
	c.t.Helper()
	return c.act("emulate", args)
}

// pageValue evaluates expression in the page whose URL contains urlPart
// through Chromium's own DevTools port (not through Gasoline: what any
// observer of the tab would see) and decodes its value.
func pageValue[T any](t testing.TB, port int, urlPart, expression string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pg := dialCDP(t, findTarget(t, port, "page", urlPart).WSURL)
	raw, err := pg.call(ctx, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true})
	require.NoError(t, err)
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(raw, &res))
	var v T
	require.NoError(t, json.Unmarshal(res.Result.Value, &v), "%s = %s", expression, res.Result.Value)
	return v
}

// probe is what a page reports of the conditions it runs under.
type probe struct {
	Width, Height int
	DPR           float64
	Dark, Reduced bool
	TZ, Lang, UA  string
	Intl          string
	Touch         int
	Online        bool
}

const probeJS = `({width: innerWidth, height: innerHeight, dpr: devicePixelRatio,
  dark: matchMedia('(prefers-color-scheme: dark)').matches, reduced: matchMedia('(prefers-reduced-motion: reduce)').matches,
  tz: Intl.DateTimeFormat().resolvedOptions().timeZone, lang: navigator.language, intl: Intl.DateTimeFormat().resolvedOptions().locale, ua: navigator.userAgent,
  touch: navigator.maxTouchPoints, online: navigator.onLine})`
