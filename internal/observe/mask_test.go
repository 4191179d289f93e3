package observe

import (
	"slices"
	"testing"

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
