package httpguard

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestGuard(t *testing.T) {
	g := &Guard{Token: "s3cret", AllowedOrigins: []string{"chrome-extension://abc/"}}
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	for _, tc := range []struct {
		name, host, origin, auth string
		want                     int
	}{
		{"ok", "127.0.0.1:7890", "", "Bearer s3cret", 204},
		{"ok localhost", "localhost:7890", "", "bearer s3cret", 204},
		{"ok ipv6", "[::1]:7890", "", "Bearer s3cret", 204},
		{"ok extension origin", "127.0.0.1:7890", "chrome-extension://abc", "Bearer s3cret", 204},
		{"no token", "127.0.0.1:7890", "", "", 401},
		{"wrong token", "127.0.0.1:7890", "", "Bearer s3cre", 401},
		{"basic auth", "127.0.0.1:7890", "", "Basic czNjcmV0", 401},
		{"rebinding host", "evil.example:7890", "", "Bearer s3cret", 403},
		{"lan host", "192.168.1.2:7890", "", "Bearer s3cret", 403},
		{"foreign origin", "127.0.0.1:7890", "https://evil.example", "Bearer s3cret", 403},
		{"other extension", "127.0.0.1:7890", "chrome-extension://xyz", "Bearer s3cret", 403},
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

func TestEmptyTokenNeverOpens(t *testing.T) {
	g := &Guard{}
	h := g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = "127.0.0.1"
	r.Header.Set("Authorization", "Bearer ")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Fatalf("status = %d, want 401", w.Code)
	}
}
