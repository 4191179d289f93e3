package analyze

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// linkSite answers link checks with known outcomes; heads counts the HEAD
// requests of /nohead.
func linkSite(t *testing.T, heads *atomic.Int64) *httptest.Server {
	mux := http.NewServeMux()
	ok := func(http.ResponseWriter, *http.Request) {}
	mux.HandleFunc("/ok", ok)
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "", http.StatusGone) })
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "", http.StatusUnauthorized) })
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "", http.StatusTooManyRequests) })
	mux.HandleFunc("/nohead", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			heads.Add(1)
			http.Error(w, "", http.StatusMethodNotAllowed)
		}
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestLinkChecks(t *testing.T) {
	var heads, deniedHits atomic.Int64
	site := linkSite(t, &heads)
	denied := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { deniedHits.Add(1) }))
	defer denied.Close()
	a := &Analyzer{cfg: Config{Denied: func(o string) bool { return o == denied.URL }, Self: []string{"http://127.0.0.1:7890"}}}
	a.links = a.linkClient()
	lc := &linkCheck{a: a, page: site.URL, sameOrigin: false}

	cases := []struct {
		url, state string
		status     int
		final      string
	}{
		{site.URL + "/ok", LinkOK, 200, ""},
		{site.URL + "/moved", LinkOK, 200, site.URL + "/ok"},
		{site.URL + "/loop", LinkRedirect, 302, ""},
		{site.URL + "/gone", LinkBroken, 410, ""},
		{site.URL + "/missing", LinkBroken, 404, ""},
		{site.URL + "/login", LinkRestricted, 401, ""},
		{site.URL + "/busy", LinkLimited, 429, ""},
		{site.URL + "/nohead", LinkOK, 200, ""},
	}
	var todo []*LinkResult
	for _, c := range cases {
		todo = append(todo, &LinkResult{URL: c.url})
	}
	lc.run(context.Background(), todo)
	for i, c := range cases {
		assert.Equal(t, c.state, todo[i].State, "%s: %s", c.url, todo[i].Detail)
		assert.Equal(t, c.status, todo[i].Status, c.url)
		assert.Equal(t, c.final, todo[i].FinalURL, c.url)
	}
	assert.Contains(t, todo[2].Detail, "too many redirects")
	assert.Equal(t, int64(1), heads.Load(), "HEAD first, then GET")

	// Refused before any request: schemes, the daemon, the policy, other
	// origins when same_origin.
	assert.Equal(t, "mailto: link, not checked", lc.refuse("mailto:a@b.test"))
	assert.Contains(t, lc.refuse("http://127.0.0.1:7890/health"), "Gasoline's own daemon")
	assert.Contains(t, lc.refuse(denied.URL+"/ok"), "the approval policy denies")
	same := &linkCheck{a: a, page: site.URL, sameOrigin: true}
	assert.Contains(t, same.refuse("http://127.0.0.1:1/x"), "other origin")
	assert.Empty(t, same.refuse(site.URL+"/x"))

	// A redirect to a denied origin is not followed.
	redir := httptest.NewServer(http.RedirectHandler(denied.URL+"/ok", http.StatusFound))
	defer redir.Close()
	r := &LinkResult{URL: redir.URL + "/x"}
	lc.run(context.Background(), []*LinkResult{r})
	assert.Equal(t, LinkRedirect, r.State)
	assert.True(t, strings.HasPrefix(r.Detail, "redirect not followed: the approval policy denies"), r.Detail)
	assert.Zero(t, deniedHits.Load(), "the denied origin was requested")

	// Out of time: what was not answered is unchecked, not broken.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	hang := []*LinkResult{{URL: site.URL + "/hang"}, {URL: site.URL + "/hang"}, {URL: site.URL + "/hang"}, {URL: site.URL + "/hang"}, {URL: site.URL + "/hang"}}
	lc.run(ctx, hang)
	for _, h := range hang {
		assert.Equal(t, LinkUnchecked, h.State)
	}
}
