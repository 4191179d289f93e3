// Package httpguard hardens the daemon's loopback HTTP and WebSocket
// endpoints: a loopback Host (DNS-rebinding defence), an allowlisted Origin
// when one is present, and a bearer token compared in constant time.
package httpguard

import (
	"crypto/subtle"
	"net"
	"net/http"
	"strings"
)

// Guard checks requests before they reach a handler. All fields are read
// only after construction.
type Guard struct {
	// Token is the bearer token every request must carry.
	Token string
	// AllowedOrigins lists the Origin values accepted when a request has
	// one (for example "chrome-extension://<id>"). A request without an
	// Origin header is a non-browser client and passes this check.
	AllowedOrigins []string
}

// Wrap returns h behind the guard. Failures answer 403 (Host, Origin) or
// 401 (token) with a one-line plain-text reason and never echo the token.
func (g *Guard) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !LoopbackHost(r.Host) {
			http.Error(w, "forbidden: Host must be a loopback name (127.0.0.1, ::1 or localhost)", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
			http.Error(w, "forbidden: Origin not allowed", http.StatusForbidden)
			return
		}
		if !g.tokenOK(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gasoline"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <token> from the daemon's state.json", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// WrapHostOnly checks Host but needs no token (for /health).
func WrapHostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !LoopbackHost(r.Host) {
			http.Error(w, "forbidden: Host must be a loopback name", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (g *Guard) originAllowed(o string) bool {
	o = strings.TrimSuffix(o, "/")
	for _, a := range g.AllowedOrigins {
		if strings.TrimSuffix(a, "/") == o {
			return true
		}
	}
	return false
}

func (g *Guard) tokenOK(r *http.Request) bool {
	if g.Token == "" {
		return false // never run open: an empty token is a setup bug
	}
	auth := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(auth) < len(prefix) || !strings.EqualFold(auth[:len(prefix)], prefix) {
		return false
	}
	got := strings.TrimSpace(auth[len(prefix):])
	return subtle.ConstantTimeCompare([]byte(got), []byte(g.Token)) == 1
}

// LoopbackHost reports whether a Host header value names this machine's
// loopback: localhost, 127.0.0.0/8 or ::1, with or without a port.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
