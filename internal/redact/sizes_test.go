package redact

import (
	"fmt"
	"strings"
	"testing"
)

// TestKeyCacheHoldsItsCap: more distinct key names than keyCacheMax are
// classified; the cache keeps at most keyCacheMax of them.
func TestKeyCacheHoldsItsCap(t *testing.T) {
	e, err := New(DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	for i := range keyCacheMax + 100 {
		e.rule(letters(i))
	}
	st := e.Sizes()[0]
	if st.Over() || st.Len != keyCacheMax {
		t.Fatalf("%s holds %d, cap %d; want it full at its cap", st.Name, st.Len, st.Cap)
	}
}

// letters names i with letters only: field_bac, …
func letters(i int) string {
	b := []byte("field_")
	for {
		b = append(b, byte('a'+i%26))
		if i /= 26; i == 0 {
			return string(b)
		}
	}
}

// TestGeneratedNamesAreNotCached: names with digits (snapshot refs, ids)
// are classified every time, not kept: the cache does not fill with
// names met once.
func TestGeneratedNamesAreNotCached(t *testing.T) {
	e, err := New(DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		e.Text(fmt.Sprintf(`{"e%d": "x", "token": "y"}`, i))
	}
	if n := e.Sizes()[0].Len; n > 10 {
		t.Fatalf("%d names cached after 1,000 generated ones", n)
	}
	if out, _, _ := e.Text(`{"session_token2": "abc123secret"}`); strings.Contains(out, "abc123secret") {
		t.Fatalf("a secret under a name with digits was not redacted: %s", out)
	}
}
