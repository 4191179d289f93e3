package httpguard

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

// fakeCreds knows one token per role.
type fakeCreds map[string]creds.Role

func (f fakeCreds) Identify(tok string) creds.Identity {
	r, ok := f[tok]
	if !ok {
		return creds.Identity{Role: creds.None}
	}
	return creds.Identity{Role: r}
}

var tokens = fakeCreds{"agent-tok": creds.Agent, "link-tok": creds.Link, "approver-tok": creds.Approver}

func tokenOf(r creds.Role) string {
	for t, rr := range tokens {
		if rr == r {
			return t
		}
	}
	return ""
}

// TestRequireRoleByCredential: an endpoint accepts exactly its own role's
// credential; another role's, an unknown one and none are refused, with a
// message naming the credential it takes.
func TestRequireRoleByCredential(t *testing.T) {
	g := &Guard{Creds: tokens, ExtensionOrigin: "chrome-extension://abc/"}
	for _, want := range creds.Roles {
		h := g.Require(want, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
		for _, sent := range append([]creds.Role{creds.None}, creds.Roles...) {
			t.Run(want.String()+"/"+sent.String(), func(t *testing.T) {
				r := httptest.NewRequest("GET", "/x", nil)
				r.Host = "127.0.0.1:7890"
				if sent != creds.None {
					r.Header.Set("Authorization", "Bearer "+tokenOf(sent))
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				code := 403
				switch {
				case sent == want:
					code = 204
				case sent == creds.None:
					code = 401
				}
				if w.Code != code {
					t.Fatalf("status = %d, want %d (%s)", w.Code, code, w.Body.String())
				}
				if code != 204 && !strings.Contains(w.Body.String(), "the "+want.String()+" credential") {
					t.Fatalf("refusal does not name the %s credential: %q", want, w.Body.String())
				}
				for tok := range tokens {
					if strings.Contains(w.Body.String(), tok) {
						t.Fatalf("refusal echoes a credential: %q", w.Body.String())
					}
				}
			})
		}
	}
}

func TestGuardHostOriginAndScheme(t *testing.T) {
	g := &Guard{Creds: tokens, ExtensionOrigin: "chrome-extension://abc/"}
	h := g.Require(creds.Agent, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	for _, tc := range []struct {
		name, host, origin, auth string
		want                     int
	}{
		{"ok", "127.0.0.1:7890", "", "Bearer agent-tok", 204},
		{"ok localhost", "localhost:7890", "", "bearer agent-tok", 204},
		{"ok ipv6", "[::1]:7890", "", "Bearer agent-tok", 204},
		{"ok extension origin", "127.0.0.1:7890", "chrome-extension://abc", "Bearer agent-tok", 204},
		{"ok localhost origin", "127.0.0.1:7890", "http://localhost:3000", "Bearer agent-tok", 204},
		{"ok 127 origin", "localhost:7890", "http://127.0.0.1:8080", "Bearer agent-tok", 204},
		{"ok ipv6 origin", "127.0.0.1:7890", "http://[::1]:9", "Bearer agent-tok", 204},
		{"ok loopback origin no port", "127.0.0.1:7890", "http://localhost", "Bearer agent-tok", 204},
		{"no token", "127.0.0.1:7890", "", "", 401},
		{"empty bearer", "127.0.0.1:7890", "", "Bearer ", 401},
		{"unknown token", "127.0.0.1:7890", "", "Bearer agent-to", 403},
		{"basic auth", "127.0.0.1:7890", "", "Basic YWdlbnQtdG9r", 401},
		{"rebinding host", "evil.example:7890", "", "Bearer agent-tok", 403},
		{"lan host", "192.168.1.2:7890", "", "Bearer agent-tok", 403},
		{"foreign origin", "127.0.0.1:7890", "https://evil.example", "Bearer agent-tok", 403},
		{"https loopback origin", "127.0.0.1:7890", "https://localhost:3000", "Bearer agent-tok", 403},
		{"lookalike origin", "127.0.0.1:7890", "http://localhost.evil.example", "Bearer agent-tok", 403},
		{"null origin", "127.0.0.1:7890", "null", "Bearer agent-tok", 403},
		{"other extension", "127.0.0.1:7890", "chrome-extension://xyz", "Bearer agent-tok", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/mcp", nil)
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Fatalf("status = %d, want %d (%s)", w.Code, tc.want, w.Body.String())
			}
		})
	}
}

func TestNoCredentialsNeverOpens(t *testing.T) {
	for _, g := range []*Guard{{}, {Creds: fakeCreds{"": creds.Agent}}} {
		h := g.Require(creds.Agent, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = "127.0.0.1"
		r.Header.Set("Authorization", "Bearer x")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code == 204 {
			t.Fatal("a guard without credentials let a request through")
		}
	}
}
