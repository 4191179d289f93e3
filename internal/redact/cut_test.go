package redact

import (
	"strings"
	"testing"
)

func TestSafeCutNeverLeavesPartOfASecret(t *testing.T) {
	e, err := New(DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{
		"ghp_" + "Zq3KxT9wLm2VbN8cR4yH6uJ1pE5sD7fG0aQe",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"AKIA" + "IOSFODNN7EXAMPLE",
		"4111 1111 1111 1111",
		"sk-ant-api03-" + strings.Repeat("abcdEFGH1234", 6),
	}
	for _, sec := range secrets {
		text := `{"result": "the token is ` + sec + `", "more": "after"}`
		start := strings.Index(text, sec)
		// Every cut inside the secret: what is left shows no part of it
		// the gateway would let through.
		for n := start + 1; n < start+len(sec); n++ {
			cut := Clip(text, n+len("…"))
			red, _, err := e.Text(cut)
			if err != nil {
				t.Fatal(err)
			}
			for k := 4; k <= len(sec); k++ {
				if strings.Contains(red, sec[:k]) && len(strings.TrimSpace(sec[:k])) >= 4 {
					t.Fatalf("cut at %d of %q leaves %q in %q", n, sec, sec[:k], red)
				}
			}
		}
	}
}

func TestSafeCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello world", 5, "hello"},
		{"hello world", 6, "hello "},
		{"hello world", 8, "hello "},
		{"hello world", 99, "hello world"},
		{"héllo", 2, "h"},
		{"pay to 4111 1111 1111 1111 now", 16, "pay to "},
		{"a b", 0, ""},
	} {
		if got := tc.s[:SafeCut(tc.s, tc.n)]; got != tc.want {
			t.Errorf("SafeCut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	if got := Clip("short", 10); got != "short" {
		t.Errorf("Clip kept %q", got)
	}
}

// A run longer than any secret is data: cut where asked, not dropped.
func TestSafeCutKeepsLongData(t *testing.T) {
	s := strings.Repeat("x", 200000)
	if got := SafeCut(s, 65536); got != 65536 {
		t.Errorf("SafeCut of a 200,000-byte run at 65536 = %d, want 65536", got)
	}
	jwtLike := "token " + strings.Repeat("a", 3000) + " after"
	if got := SafeCut(jwtLike, 2000); got != len("token ") {
		t.Errorf("SafeCut inside a 3,000-byte run = %d, want %d (the run goes)", got, len("token "))
	}
}
