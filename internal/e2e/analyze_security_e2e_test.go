package e2e

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type finding struct {
	Severity, Category, Key, Class, Where string
}

func findings(t testing.TB, a answer) []finding {
	t.Helper()
	var r struct{ Findings []finding }
	decode(t, a.Data, &r)
	return r.Findings
}

// noSecrets requires that no planted secret value appears in an answer.
func noSecrets(t testing.TB, a answer) {
	t.Helper()
	raw, err := json.Marshal(a.Raw.StructuredContent)
	require.NoError(t, err)
	for _, s := range []string{plantedJWT, plantedStripe, plantedGitHub, plantedSID} {
		assert.NotContains(t, a.Text, s)
		assert.NotContains(t, string(raw), s)
	}
}

// openSecure loads the security page with a secret in its URL and waits
// until the capture holds the page's fetch (it carries a secret too).
func (x *an) openSecure(base string) int {
	x.t.Helper()
	tab := x.newTab(base + "/analyze/secure?ref=home&access_token=" + plantedGitHub)
	x.until("network_waterfall", map[string]any{"url": "/analyze/api/data"}, 15*time.Second, func(a answer) bool {
		return len(list(a, "requests")) == 1
	})
	return tab
}

// TestE2EAnalyzeSecurityAudit: the security page's planted defects over
// http — cookie flags, credentials in storage and URLs (named by key and
// class, never shown), missing headers — and over https mixed content,
// HSTS and cookies without Secure; page_issues ranks them with the rest.
func TestE2EAnalyzeSecurityAudit(t *testing.T) {
	x := startAnalyze(t, "analyze-security", ChainOptions{ExtraArgs: []string{"--ignore-certificate-errors"}})
	x.openSecure(x.site.URL)
	a := x.analyze("security_audit", nil)
	pageWhere := x.site.URL + "/analyze/secure?…"
	want := []finding{
		{"high", "cookie", "session_id", "", ""},
		{"high", "storage", "auth_token", "jwt", "localStorage"},
		{"high", "storage", "payment", "stripe_key", "sessionStorage"},
		{"high", "url", "access_token", "github_token", pageWhere},
		{"high", "url", "api_key", "stripe_key", x.site.URL + "/analyze/api/data?…"},
		{"medium", "header", "content-security-policy", "", ""},
		{"low", "cookie", "session_id", "", ""},
		{"low", "cookie", "tracking", "", ""},
		{"low", "header", "x-content-type-options", "", ""},
	}
	assert.Equal(t, want, findings(t, a), a.Text)
	var r struct {
		HTTPS       bool
		HeadersSeen bool `json:"headers_seen"`
		Headers     map[string]string
		Cookies     []struct {
			Name           string
			HTTPOnly       bool `json:"http_only"`
			ReadableScript bool `json:"readable_by_script"`
			SecretName     bool `json:"secret_name"`
		}
	}
	decode(t, a.Data, &r)
	assert.False(t, r.HTTPS)
	assert.True(t, r.HeadersSeen)
	assert.Equal(t, map[string]string{"x-frame-options": "DENY"}, r.Headers)
	cookies := map[string][3]bool{}
	for _, c := range r.Cookies {
		cookies[c.Name] = [3]bool{c.HTTPOnly, c.ReadableScript, c.SecretName}
	}
	assert.Equal(t, map[string][3]bool{"session_id": {false, true, true}, "theme": {true, false, false}, "tracking": {false, true, false}}, cookies)
	noSecrets(t, a)

	// page_issues ranks these with the page's accessibility problems (it
	// has none) and its errors (none).
	a = x.analyze("page_issues", nil)
	var is struct {
		Issues []struct {
			Rank               int
			Severity, Category string
		}
		Total int
	}
	decode(t, a.Data, &is)
	assert.Equal(t, len(want), is.Total, a.Text)
	for i, got := range is.Issues {
		assert.Equal(t, i+1, got.Rank)
		assert.Equal(t, want[i].Severity, got.Severity)
		assert.Equal(t, "security", got.Category)
	}
	noSecrets(t, a)

	// Over https: mixed content (an http script, blocked; an http image),
	// no HSTS, and cookies without Secure.
	tls := httptest.NewTLSServer(x.mux())
	t.Cleanup(tls.Close)
	x.openSecure(tls.URL)
	a = x.analyze("security_audit", nil)
	got := findings(t, a)
	decode(t, a.Data, &r)
	assert.True(t, r.HTTPS)
	tlsWant := []finding{
		{"high", "cookie", "session_id", "", ""},
		{"high", "cookie", "session_id", "", ""},
		{"high", "storage", "auth_token", "jwt", "localStorage"},
		{"high", "storage", "payment", "stripe_key", "sessionStorage"},
		{"high", "url", "access_token", "github_token", tls.URL + "/analyze/secure?…"},
		{"high", "url", "api_key", "stripe_key", tls.URL + "/analyze/api/data?…"},
		{"high", "mixed_content", "html > body > script:nth-of-type(1)", "", x.other.URL + "/analyze/big.js"},
		{"medium", "mixed_content", "html > body > img", "", x.other.URL + "/analyze/ok"},
		{"medium", "cookie", "theme", "", ""},
		{"medium", "cookie", "tracking", "", ""},
		{"medium", "header", "content-security-policy", "", ""},
		{"medium", "header", "strict-transport-security", "", ""},
		{"low", "cookie", "tracking", "", ""},
		{"low", "cookie", "session_id", "", ""},
		{"low", "header", "x-content-type-options", "", ""},
	}
	assert.ElementsMatch(t, tlsWant, got, a.Text)
	require.Len(t, got, len(tlsWant))
	for i := 1; i < len(got); i++ {
		assert.GreaterOrEqual(t, rank[got[i-1].Severity], rank[got[i].Severity], "worst first: %v", got)
	}
	noSecrets(t, a)
}

var rank = map[string]int{"high": 3, "medium": 2, "low": 1}
