package csp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func req(id, typ, method, url string) capture.Request {
	return capture.Request{ID: id, ResourceType: typ, Method: method, URL: url}
}

func TestBuild(t *testing.T) {
	in := Input{
		PageURL:  "https://shop.example/cart?x=1",
		Document: "L1",
		Requests: []capture.Request{
			req("L1", "Document", "GET", "https://shop.example/cart?x=1"),
			req("2", "Script", "GET", "https://shop.example/app.js"),
			req("3", "Script", "GET", "https://cdn.example:443/lib.js"),
			req("4", "Script", "GET", "https://cdn.example/other.js"),
			req("5", "Stylesheet", "GET", "https://fonts.example/css"),
			req("6", "Font", "GET", "https://fonts.example:8443/f.woff2"),
			req("7", "Image", "GET", "data:image/png;base64,AAAA"),
			req("8", "Image", "GET", "blob:https://shop.example/uuid"),
			req("9", "Fetch", "POST", "https://api.example/v1/cart"),
			req("10", "XHR", "GET", "http://[::1]:8080/x"),
			req("11", "Document", "GET", "https://pay.example/frame"),
			req("13", "Media", "GET", "https://media.example/a.mp4"),
			req("14", "Manifest", "GET", "https://shop.example/manifest.json"),
			req("15", "Other", "GET", "https://shop.example/favicon.ico"),
			req("16", "Script", "GET", "chrome-extension://abc/x.js"),
			req("17", "Prefetch", "GET", "https://next.example/"),
		},
		Sockets: []string{"wss://shop.example/live", "wss://push.example/s"},
		Inline:  &Inline{Scripts: []string{"a()"}, Handlers: []string{"go()"}, JSURLs: 1},
	}
	p := Build(in)
	assert.Equal(t, "Content-Security-Policy", p.Header)
	assert.Equal(t, "https://shop.example", p.Self)
	assert.Equal(t, "default-src 'self'; "+
		"script-src 'self' https://cdn.example "+hash("a()")+"; "+
		"script-src-attr 'unsafe-hashes' "+hash("go()")+"; "+
		"style-src https://fonts.example; "+
		"img-src blob: data:; "+
		"font-src https://fonts.example:8443; "+
		"connect-src 'self' http://[::1]:8080 https://api.example wss://push.example; "+
		"media-src https://media.example; "+
		"frame-src https://pay.example; "+
		"object-src 'none'; base-uri 'self'; form-action 'self'", p.Value)
	assert.Equal(t, 14, p.Requests, "what each directive allows, sockets included")
	assert.Contains(t, p.Notes, "1 javascript: links will be blocked: replace them with event listeners")
	assert.Contains(t, p.Notes, "2 requests of other kinds (workers, prefetches, favicons, …) fall under default-src 'self'; add their origins if the page needs them")
	for _, d := range p.Directives {
		if d.Name == "script-src" {
			assert.Equal(t, map[string]int{"'self'": 1, "https://cdn.example": 2}, d.Requests)
		}
	}
}

func TestBuildMinimalAndReportOnly(t *testing.T) {
	p := Build(Input{PageURL: "http://127.0.0.1:8080/", ReportOnly: true,
		Requests: []capture.Request{req("1", "Script", "GET", "http://127.0.0.1:8080/a.js")}, Inline: &Inline{}})
	assert.Equal(t, ReportOnly, p.Header)
	assert.Equal(t, "default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'", p.Value)
	assert.Contains(t, p.Notes[len(p.Notes)-1], "report-only")

	unread := Build(Input{PageURL: "http://a.example/"})
	assert.Contains(t, unread.Notes[0], "inline scripts and styles could not be read")
}

func TestSource(t *testing.T) {
	for _, tc := range []struct{ url, self, want string }{
		{"https://A.example:443/x", "https://a.example", "'self'"},
		{"ws://h:81/s", "http://h:81", "'self'"},
		{"wss://h/s", "https://h", "'self'"},
		{"ws://h/s", "https://h", "ws://h"},
		{"http://h:8080/", "https://h", "http://h:8080"},
		{"data:text/plain,x", "", "data:"},
		{"about:blank", "", ""},
		{"::bad", "", ""},
	} {
		got, _ := source(tc.url, tc.self)
		assert.Equal(t, tc.want, got, tc.url)
	}
}
