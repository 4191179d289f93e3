package testbrowser

import (
	"slices"
	"testing"
)

// Every browser gets one --enable-features flag (Chromium reads only the
// last), WebMCP in it unless off, the first page still last.
func TestFeatures(t *testing.T) {
	base := Args("/u", "/e", "about:blank")
	for _, tc := range []struct {
		name  string
		extra []string
		off   bool
		want  string // the one --enable-features flag; "" for none
	}{
		{"default", nil, false, "--enable-features=WebMCP"},
		{"off", nil, true, ""},
		{"merged", []string{"--enable-features=Foo,WebMCP", "--x"}, false, "--enable-features=WebMCP,Foo"},
		{"off keeps others", []string{"--enable-features=Foo"}, true, "--enable-features=Foo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(base[:len(base)-1:len(base)-1], append(tc.extra, "about:blank")...)
			got := features(args, tc.off)
			var flags []string
			for _, a := range got {
				if len(a) > 18 && a[:18] == "--enable-features=" {
					flags = append(flags, a)
				}
			}
			want := []string{tc.want}
			if tc.want == "" {
				want = nil
			}
			if !slices.Equal(flags, want) {
				t.Errorf("flags %q, want %q", flags, want)
			}
			if got[len(got)-1] != "about:blank" {
				t.Errorf("last arg %q, want the first page", got[len(got)-1])
			}
			if slices.Contains(tc.extra, "--x") && !slices.Contains(got, "--x") {
				t.Error("other flags dropped")
			}
		})
	}
}
