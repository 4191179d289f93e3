package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// itemsJS reloads mock.html's list (its button) and reads it back.
const itemsJS = `(async () => {
  document.getElementById('status').textContent = '';
  document.getElementById('reload').click();
  for (let i = 0; i < 200 && !document.getElementById('status').textContent; i++) await new Promise((r) => setTimeout(r, 10));
  return {status: document.getElementById('status').textContent,
    items: [...document.querySelectorAll('#items li')].map((li) => li.textContent)};
})()`

type items struct {
	Status string
	Items  []string
}

// TestE2ERoute: a route fulfils mock.html's JSON with the agent's body
// (the page renders it), blocks it (the page's fetch fails) or delays it;
// the newest matching route wins; observe routes lists each with its hits
// and the body it answers with, redacted and fenced as page text; unroute
// gives the page the real data again.
func TestE2ERoute(t *testing.T) {
	x := startDevtools(t, "route-e2e", ChainOptions{})
	x.open("mock.html")
	assert.Equal(t, items{"status 200", []string{"Real one", "Real two"}}, js[items](x.client, itemsJS))

	const secret = "AKIAIOSFODNN7EXAMPLE"
	body := `{"items":[{"id":9,"name":"Mocked"}],"key":"` + secret + `"}`
	a := x.act("route", map[string]any{"url_pattern": "*/devtools/items.json", "body": body})
	assert.Contains(t, a.Text, `route r1 on tab`)
	assert.NotContains(t, a.Text, secret, "the answer is redacted")
	assert.Equal(t, items{"status 200", []string{"Mocked"}}, js[items](x.client, itemsJS))

	// The newest route wins: a 503 with a body of its own.
	x.act("route", map[string]any{"url_pattern": "*items.json", "status_code": 503, "body": `{"items":[]}`})
	assert.Equal(t, items{"status 503", []string{}}, js[items](x.client, itemsJS))

	routes := x.observe("routes", nil)
	assert.Len(t, list(routes, "routes"), 2)
	assert.Contains(t, routes.Page, `"*/devtools/items.json" → answer 200, Content-Type: application/json with`)
	assert.Contains(t, routes.Page, "Mocked")
	assert.Contains(t, routes.Page, "GET http://127.0.0.1:")
	assert.NotEqual(t, routes.Text, routes.Page, "the routes and their bodies are fenced as page text")
	assert.NotContains(t, routes.Text, secret, "a fulfilled body is redacted in observe routes")
	first := list(routes, "routes")[0]
	assert.Equal(t, 1.0, first["hits"])

	// Block: the page's request fails as a blocker's would.
	x.act("unroute", nil)
	x.act("route", map[string]any{"url_pattern": "*/devtools/items.json", "block": true})
	got := js[items](x.client, itemsJS)
	assert.True(t, strings.HasPrefix(got.Status, "failed:"), got.Status)

	// Delay: the request waits at least as long as asked, then goes on.
	x.act("unroute", map[string]any{"url_pattern": "*/devtools/items.json"})
	x.act("route", map[string]any{"url_pattern": "*/devtools/items.json", "delay_ms": 800})
	start := time.Now()
	assert.Equal(t, items{"status 200", []string{"Real one", "Real two"}}, js[items](x.client, itemsJS))
	assert.GreaterOrEqual(t, time.Since(start), 800*time.Millisecond, "held for delay_ms")

	// A route by resource type: the page's fetch() is one.
	x.act("unroute", nil)
	x.act("route", map[string]any{"url_pattern": "*", "type": "fetch", "block": true})
	got = js[items](x.client, itemsJS)
	assert.True(t, strings.HasPrefix(got.Status, "failed:"), got.Status)

	// A route for another method leaves GETs alone.
	x.act("unroute", nil)
	x.act("route", map[string]any{"url_pattern": "*/devtools/items.json", "method": "POST", "block": true})
	assert.Equal(t, items{"status 200", []string{"Real one", "Real two"}}, js[items](x.client, itemsJS))

	// Unroute: the real data again, and nothing listed.
	a = x.act("unroute", nil)
	assert.Contains(t, a.Text, "removed 1 route(s) (every route); 0 left")
	assert.Empty(t, list(x.observe("routes", nil), "routes"))
	assert.Equal(t, items{"status 200", []string{"Real one", "Real two"}}, js[items](x.client, itemsJS))

	// Bad routes are refused with what to fix.
	bad := x.fail("invalid_argument", "route", map[string]any{"url_pattern": "*"})
	assert.Contains(t, bad.Text, "say what the route does")
	x.fail("invalid_argument", "route", map[string]any{"url_pattern": "*", "block": true, "body": "x"})
	x.fail("invalid_argument", "route", map[string]any{"url_pattern": "*", "block": true, "type": "spaceship"})
	require.Empty(t, list(x.observe("routes", nil), "routes"))
}
