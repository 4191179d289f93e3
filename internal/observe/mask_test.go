package observe

import (
	"slices"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
)

// TestWatchAttrs: a page with nothing to mask is watched for changes to
// the attributes the selectors read; a selector that depends on anything
// else (a pseudo-class: state no mutation shows) means always painting.
func TestWatchAttrs(t *testing.T) {
	cases := []struct {
		sels []string
		want []string // nil: not watchable
	}{
		{sensitive.Builtin, []string{"type", "autocomplete", "name", "id", "data-gasoline-mask"}},
		{[]string{".private-note"}, []string{"class"}},
		{[]string{"#otp", "form .x > input[data-k='a]b']"}, []string{"id", "class", "data-k"}},
		{[]string{`a[href^="https://x"]`}, []string{"href"}},
		{[]string{"input:focus"}, nil},
		{[]string{"div:not(.x)"}, nil},
		{[]string{"input[name"}, nil},
		{[]string{"[ ]"}, nil},
		{[]string{"div"}, nil}, // reads no attribute: a tag alone is not worth watching for
	}
	for _, c := range cases {
		got, ok := watchAttrs(c.sels)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("watchAttrs(%q) = %q, %v; want %q", c.sels, got, ok, c.want)
		}
	}
}

// TestMaskToken: a capture's mask carries the same token as the last one
// under the same selectors (its scripts' text stays the same, so V8 reuses
// their compiled code), another under other selectors or when a capture
// asks for a token of its own (out-of-process frames).
func TestMaskToken(t *testing.T) {
	a, b := []byte(`["input[type=password i]"]`), []byte(`["input[type=password i]",".x"]`)
	if x, y := maskToken(a, false), maskToken(a, false); x != y {
		t.Errorf("same selectors: tokens %q and %q; want the same", x, y)
	}
	if x, y := maskToken(a, false), maskToken(b, false); x == y {
		t.Errorf("other selectors: token %q for both; want two", x)
	}
	if x, y := maskToken(a, false), maskToken(a, true); x == y {
		t.Errorf("fresh: token %q for both; want two", x)
	}
	if x, y := maskToken(a, true), maskToken(a, true); x == y {
		t.Errorf("two fresh tokens: %q for both; want two", x)
	}
	for _, watch := range []bool{false, true} {
		m1, err1 := maskScripts(&mcpserver.Call{}, watch, false)
		m2, err2 := maskScripts(&mcpserver.Call{}, watch, false)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if m1 != m2 {
			t.Errorf("watch %v: two captures under the same policy send different scripts (tokens %q, %q)", watch, m1.token, m2.token)
		}
		if f, _ := maskScripts(&mcpserver.Call{}, watch, true); f.on == m1.on || f.held == m1.held {
			t.Errorf("watch %v: a fresh token left the scripts as they were", watch)
		}
	}
}
