// Package httpguard hardens the daemon's loopback HTTP and WebSocket
// endpoints, as tailscale's localapi does: a loopback Host (DNS-rebinding
// defence), an Origin that is absent, a loopback page or the Gasoline
// extension, and the bearer credential of the one role the endpoint serves
// (internal/creds). A valid credential of another role is refused like a
// wrong one: an agent's MCP credential never decides an approval, opens the
// extension link or stops the daemon.
package httpguard

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

// Credentials tells who a presented bearer token names (*creds.Set): its
// role, and for MCP credentials the principal sessions are bound to. It
// must compare in constant time.
type Credentials interface {
	Identify(token string) creds.Identity
}

type identityKey struct{}

// WithIdentity returns ctx carrying the identity of the request's
// credential. The guard sets it for every request it lets through;
// handlers (the MCP transports) bind sessions to it.
func WithIdentity(ctx context.Context, id creds.Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// IdentityFrom returns the identity the guard found, and false for a
// request that did not pass a guard requiring a credential.
func IdentityFrom(ctx context.Context) (creds.Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(creds.Identity)
	return id, ok && id.Role != creds.None
}

// Guard checks requests before they reach a handler. Both fields are
// required and read only after construction.
type Guard struct {
	Creds Credentials
	// ExtensionOrigin is the Gasoline extension's origin
	// ("chrome-extension://<id>/"), accepted besides loopback origins.
	ExtensionOrigin string
}

// Require returns h behind the guard for one role. Failures answer with a
// one-line plain-text reason that names the credential the endpoint takes
// and never echoes a credential: 403 for a non-loopback Host, a foreign
// Origin or a wrong credential (another role's included), 401 when no
// credential was sent.
func (g *Guard) Require(role creds.Role, h http.Handler) http.Handler {
	return g.RequireAny([]creds.Role{role}, h)
}

// RequireAny is Require for an endpoint more than one role may call (/mcp:
// the agent credential and remote agents'). The request's context carries
// the credential's identity (IdentityFrom).
func (g *Guard) RequireAny(roles []creds.Role, h http.Handler) http.Handler {
	takes := describe(roles)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !checkHost(w, r) || !g.checkOrigin(w, r) {
			return
		}
		tok, sent := bearer(r)
		if !sent {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gasoline"`)
			http.Error(w, "unauthorized: "+r.URL.Path+" takes "+takes+", sent as Authorization: Bearer <credential>", http.StatusUnauthorized)
			return
		}
		id, why := Check(g.Creds, tok, roles)
		if why != "" {
			http.Error(w, "forbidden: "+r.URL.Path+" takes "+takes+"; "+why, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), id)))
	})
}

// Check identifies tok among cr's credentials and says why it may not call
// what takes roles ("" when it may). Every way into the daemon that takes
// a credential (the HTTP endpoints, the stdio relay's link) checks with
// it, so each refuses the same credentials with the same words.
func Check(cr Credentials, tok string, roles []creds.Role) (creds.Identity, string) {
	id := creds.Identity{Role: creds.None}
	if cr != nil && tok != "" {
		id = cr.Identify(tok)
	}
	switch {
	case id.Role != creds.None && slices.Contains(roles, id.Role):
		return id, ""
	case id.Role != creds.None:
		return id, "the " + id.Role.String() + " credential is not valid here"
	}
	return id, "the credential sent is not a current Gasoline credential (rotated, revoked, expired, or from another install)"
}

func describe(roles []creds.Role) string {
	parts := make([]string, len(roles))
	for i, r := range roles {
		parts[i] = r.Describe()
	}
	return strings.Join(parts, " or ")
}

// WrapHostOnly checks Host but needs no credential (for /health).
func WrapHostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if checkHost(w, r) {
			h.ServeHTTP(w, r)
		}
	})
}

func checkHost(w http.ResponseWriter, r *http.Request) bool {
	if LoopbackHost(r.Host) {
		return true
	}
	http.Error(w, "forbidden: Host must be a loopback name (127.0.0.1, ::1 or localhost)", http.StatusForbidden)
	return false
}

func (g *Guard) checkOrigin(w http.ResponseWriter, r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" || LoopbackOrigin(o) || g.ExtensionOrigin != "" && strings.TrimSuffix(o, "/") == strings.TrimSuffix(g.ExtensionOrigin, "/") {
		return true
	}
	http.Error(w, "forbidden: Origin not allowed; only pages on http://localhost, http://127.0.0.1 or http://[::1] (any port) and the Gasoline extension may call the daemon", http.StatusForbidden)
	return false
}

// bearer returns the request's bearer token and whether one was sent.
func bearer(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(auth) < len(prefix) || !strings.EqualFold(auth[:len(prefix)], prefix) {
		return "", false
	}
	tok := strings.TrimSpace(auth[len(prefix):])
	return tok, tok != ""
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

// LoopbackOrigin reports whether an Origin header value is a page served
// over http from localhost, 127.0.0.1 or [::1], on any port.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return u.Port() == "" || validPort(u.Port())
	}
	return false
}

func validPort(p string) bool {
	if len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
