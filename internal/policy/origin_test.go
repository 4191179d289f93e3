package policy

import (
	"testing"
)

func TestParseOrigin(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = error
	}{
		{"https://shop.example", "https://shop.example"},
		{"https://shop.example/checkout?x=1#y", "https://shop.example"},
		{"HTTPS://Shop.Example:443", "https://shop.example"},
		{"https://shop.example.", "https://shop.example"},
		{"http://127.0.0.1:3000", "http://127.0.0.1:3000"},
		{"http://127.0.0.1:80", "http://127.0.0.1"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"https://bank.com@evil.com", "https://evil.com"},
		{"https://user:pw@bank.com", "https://bank.com"},
		{"about:blank", ""},
		{"", ""},
		{"bank.com", ""},
		{"https://", ""},
		{"https://bank%2ecom", ""},
		{"https://*.bank.com", ""},
		{"https://b\u00e4nk.com", ""},
		{"https://bank..com", ""},
		{"https://bank.com:0", ""},
		{"https://bank.com:99999", ""},
		{"https://bank.com:", ""},
		{"https://bank com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			o, err := ParseOrigin(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("ParseOrigin(%q) = %v, want an error", tt.in, o)
				}
				return
			}
			if err != nil || o.String() != tt.want {
				t.Fatalf("ParseOrigin(%q) = %v, %v; want %s", tt.in, o, err, tt.want)
			}
		})
	}
}

// TestOriginPatterns is the table of origin patterns against origins,
// including the tricks an attacker's page could try.
func TestOriginPatterns(t *testing.T) {
	tests := []struct {
		pattern, origin string
		want            bool
	}{
		{"*", "https://anything.example", true},
		{"*", "", true},
		{"*", "about:blank", true},
		{"https://bank.com", "https://bank.com", true},
		{"https://bank.com", "https://BANK.com/login", true},
		{"https://bank.com", "https://bank.com.", true},
		{"https://bank.com", "https://bank.com:443", true},
		{"https://bank.com", "https://bank.com:8443", false},
		{"https://bank.com", "http://bank.com", false},
		{"https://bank.com", "https://bank.com.evil.com", false},
		{"https://bank.com", "https://evilbank.com", false},
		{"https://bank.com", "https://bank.com@evil.com", false},
		{"https://bank.com", "https://evil.com/https://bank.com", false},
		{"https://bank.com", "https://evil.com?bank.com", false},
		{"https://bank.com", "https://evil.com#bank.com", false},
		{"https://bank.com", "https://www.bank.com", false},
		{"https://bank.com", "", false},
		{"https://bank.com", "about:blank", false},
		{"https://*.bank.com", "https://www.bank.com", true},
		{"https://*.bank.com", "https://a.b.bank.com", true},
		// evil.com.bank.com is a real subdomain of bank.com (bank.com's
		// owner controls it), so it is covered; the reverse is not.
		{"https://*.bank.com", "https://evil.com.bank.com", true},
		{"https://*.bank.com", "https://bank.com.evil.com", false},
		{"https://*.bank.com", "https://bank.com", false},
		{"https://*.bank.com", "https://evilbank.com", false},
		{"https://*.bank.com", "https://xbank.com", false},
		{"https://*.bank.com", "https://.bank.com", false},
		{"https://*.bank.com", "http://www.bank.com", false},
		{"https://*.bank.com", "https://www.bank.com:8443", false},
		{"https://*.bank.com", "https://www.bank.com@evil.com", false},
		{"https://*.bank.com:*", "https://www.bank.com:8443", true},
		{"http://127.0.0.1:*", "http://127.0.0.1:3000", true},
		{"http://127.0.0.1:*", "http://127.0.0.1", true},
		{"http://127.0.0.1:*", "https://127.0.0.1:3000", false},
		{"http://127.0.0.1:*", "http://127.0.0.1.evil.com:3000", false},
		{"http://127.0.0.1:*", "http://localhost:3000", false},
		{"http://127.0.0.1:*", "http://127.0.0.2:3000", false},
		{"http://127.0.0.1:3000", "http://127.0.0.1:3001", false},
		{"http://[::1]:*", "http://[::1]:5173", true},
		{"http://[::1]:*", "http://127.0.0.1:5173", false},
		{"http://localhost:*", "http://localhost.:8080", true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" "+tt.origin, func(t *testing.T) {
			p, err := parsePattern(tt.pattern)
			if err != nil {
				t.Fatalf("parsePattern(%q): %v", tt.pattern, err)
			}
			o, oerr := ParseOrigin(tt.origin)
			if got := p.match(o, oerr == nil); got != tt.want {
				t.Fatalf("%q matches %q = %v, want %v", tt.pattern, tt.origin, got, tt.want)
			}
		})
	}
}

func TestBadOriginPatterns(t *testing.T) {
	for _, s := range []string{
		"", "**", "bank.com", "*.bank.com", "*://bank.com", "https://ba*.com", "https://a.*.com",
		"https://*bank.com", "https://bank.com/path", "https://bank.com:*:*", "https://bank.com:80:*",
		"https://*.127.0.0.1", "https://*.[::1]", "https://bank.com?x", "https://*", "https://*.*.bank.com",
		"https://user@bank.com",
	} {
		if _, err := parsePattern(s); err == nil {
			t.Errorf("parsePattern(%q) succeeded, want an error", s)
		}
	}
}

func FuzzOriginMatch(f *testing.F) {
	f.Add("https://*.bank.com", "https://bank.com.evil.com")
	f.Add("http://127.0.0.1:*", "http://127.0.0.1:3000")
	f.Add("*", "about:blank")
	f.Fuzz(func(t *testing.T, pat, origin string) {
		p, err := parsePattern(pat)
		if err != nil {
			return
		}
		o, oerr := ParseOrigin(origin)
		if !p.match(o, oerr == nil) || p.any {
			return
		}
		// A match means the parsed parts agree, whatever the raw string.
		if o.Scheme != p.scheme || !p.anyPort && o.Port != p.port {
			t.Fatalf("%q matched %q with another scheme or port", pat, origin)
		}
		if o.Host != p.host && !(p.subhosts && len(o.Host) > len(p.host)) {
			t.Fatalf("%q matched host %q", pat, o.Host)
		}
		// The canonical form parses back to the same origin.
		if back, err := ParseOrigin(o.String()); err != nil || back != o {
			t.Fatalf("round trip of %v: %v, %v", o, back, err)
		}
	})
}
