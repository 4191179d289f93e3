package policy

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Origin is a parsed web origin: scheme, host and port, compared as parts,
// never as raw strings.
type Origin struct {
	Scheme string // lowercase, e.g. "https"
	Host   string // lowercase ASCII (punycode), no trailing dot; IPv6 without brackets
	Port   int    // explicit or the scheme's default; 0 when the scheme has none
}

// defaultPorts are the ports implied when an origin names none.
var defaultPorts = map[string]int{"http": 80, "https": 443, "ws": 80, "wss": 443}

// String is the canonical form: scheme://host, with :port only when it is
// not the scheme's default.
func (o Origin) String() string {
	h := o.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if o.Port == 0 || o.Port == defaultPorts[o.Scheme] {
		return o.Scheme + "://" + h
	}
	return o.Scheme + "://" + h + ":" + strconv.Itoa(o.Port)
}

// errOrigin prefixes every origin parse error.
var errOrigin = errors.New("policy: not a web origin")

// ParseOrigin parses "scheme://host[:port]". A full URL is accepted and
// reduced to its origin (path, query, fragment and user info are dropped:
// in "https://bank.com@evil.com" the host is evil.com). The host must be
// ASCII letters, digits, '-', '_' and non-empty dot-separated labels, or an
// IP literal; anything else (percent escapes, wildcards, opaque URLs such as
// "about:blank") is an error.
func ParseOrigin(s string) (Origin, error) {
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Scheme == "" || !strings.Contains(s, "://") {
		return Origin{}, fmt.Errorf("%w: %q", errOrigin, s)
	}
	o := Origin{Scheme: strings.ToLower(u.Scheme)}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") { // IPv6 literal
		if !validIPv6(host) {
			return Origin{}, fmt.Errorf("%w: bad IPv6 host in %q", errOrigin, s)
		}
	} else if host, err = canonicalHost(host); err != nil {
		return Origin{}, fmt.Errorf("%w: %v in %q", errOrigin, err, s)
	}
	o.Host = strings.ToLower(host)
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Origin{}, fmt.Errorf("%w: bad port in %q", errOrigin, s)
		}
		o.Port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return Origin{}, fmt.Errorf("%w: empty port in %q", errOrigin, s)
	} else {
		o.Port = defaultPorts[o.Scheme]
	}
	return o, nil
}

// CanonicalOrigin returns the canonical string of s when s parses as a web
// origin (or URL), and s trimmed and lowercased otherwise (an opaque origin
// such as "about:blank" still compares equal to itself).
func CanonicalOrigin(s string) string {
	if o, err := ParseOrigin(s); err == nil {
		return o.String()
	}
	return strings.ToLower(strings.TrimSpace(s))
}

// canonicalHost lowercases a DNS name, drops one trailing dot and checks
// its labels.
func canonicalHost(h string) (string, error) {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" {
		return "", errors.New("empty host")
	}
	if len(h) > 253 {
		return "", errors.New("host too long")
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 {
			return "", errors.New("empty or overlong host label")
		}
		for _, c := range []byte(label) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("character %q in host", c)
			}
		}
	}
	return h, nil
}

func validIPv6(h string) bool {
	if h == "" || !strings.Contains(h, ":") {
		return false
	}
	for _, c := range []byte(strings.ToLower(h)) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == ':' || c == '.') {
			return false
		}
	}
	return true
}

// pattern is a compiled origin pattern.
type pattern struct {
	any      bool   // "*": every origin, including none and opaque ones
	scheme   string // literal
	host     string // the literal host, or the suffix after "*."
	subhosts bool   // "*.host": one or more labels before host, not host itself
	port     int
	anyPort  bool // ":*"
}

// parsePattern compiles "*", or "scheme://host[:port]" where host may start
// with "*." (any subdomain) and port may be "*" (any port). A wildcard
// anywhere else, a path, or a wildcard scheme is an error.
func parsePattern(s string) (pattern, error) {
	if s == "*" {
		return pattern{any: true}, nil
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" || strings.Contains(scheme, "*") {
		return pattern{}, fmt.Errorf("origin pattern %q: want \"*\" or scheme://host[:port]", s)
	}
	var p pattern
	if r, found := strings.CutSuffix(rest, ":*"); found {
		p.anyPort, rest = true, r
	}
	if r, found := strings.CutPrefix(rest, "*."); found {
		p.subhosts, rest = true, r
	}
	if strings.ContainsAny(rest, "*/?#@") {
		return pattern{}, fmt.Errorf("origin pattern %q: wildcards only as \"*.\" before the host or \":*\" as the port; no path", s)
	}
	o, err := ParseOrigin(scheme + "://" + rest)
	if err != nil {
		return pattern{}, fmt.Errorf("origin pattern %q: %v", s, err)
	}
	if p.subhosts && strings.Contains(o.Host, ":") || p.subhosts && isIPv4(o.Host) {
		return pattern{}, fmt.Errorf("origin pattern %q: \"*.\" needs a DNS name, not an IP address", s)
	}
	if p.anyPort && strings.Contains(rest, "]:") || p.anyPort && !strings.HasPrefix(rest, "[") && strings.Contains(rest, ":") {
		return pattern{}, fmt.Errorf("origin pattern %q: two ports", s)
	}
	p.scheme, p.host, p.port = o.Scheme, o.Host, o.Port
	return p, nil
}

// match reports whether the origin o (ok=false: absent or opaque) matches.
func (p pattern) match(o Origin, ok bool) bool {
	if p.any {
		return true
	}
	if !ok || o.Scheme != p.scheme || !p.anyPort && o.Port != p.port {
		return false
	}
	if p.subhosts {
		return len(o.Host) > len(p.host)+1 && strings.HasSuffix(o.Host, "."+p.host)
	}
	return o.Host == p.host
}

func isIPv4(h string) bool {
	parts := strings.Split(h, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// OriginPattern is a compiled origin pattern, for other packages: "*", or
// "scheme://host[:port]" where host may start with "*." and port may be
// "*" (parsePattern).
type OriginPattern struct {
	p   pattern
	src string
}

// ParseOriginPattern compiles an origin pattern.
func ParseOriginPattern(s string) (OriginPattern, error) {
	p, err := parsePattern(strings.TrimSpace(s))
	if err != nil {
		return OriginPattern{}, err
	}
	return OriginPattern{p: p, src: strings.TrimSpace(s)}, nil
}

// Matches reports whether the origin of rawURL (a URL or an origin)
// matches; "*" matches every origin, none and opaque ones included.
func (o OriginPattern) Matches(rawURL string) bool {
	org, err := ParseOrigin(rawURL)
	return o.p.match(org, err == nil)
}

// String is the pattern as written.
func (o OriginPattern) String() string { return o.src }
