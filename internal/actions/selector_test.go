package actions

import (
	"testing"
)

func TestParseSelector(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Selector
	}{
		{"#save", Selector{Kind: KindCSS, Value: "#save", Nth: -1}},
		{"input[name=email]", Selector{Kind: KindCSS, Value: "input[name=email]", Nth: -1}},
		{`a[href^="text=x"]`, Selector{Kind: KindCSS, Value: `a[href^="text=x"]`, Nth: -1}},
		{"text=Submit", Selector{Kind: KindText, Value: "Submit", Nth: -1}},
		{`text="Submit order"`, Selector{Kind: KindText, Value: "Submit order", Exact: true, Nth: -1}},
		{`text='it\'s'`, Selector{Kind: KindText, Value: "it's", Exact: true, Nth: -1}},
		{"label=Email", Selector{Kind: KindLabel, Value: "Email", Nth: -1}},
		{"placeholder=Search the docs", Selector{Kind: KindPlaceholder, Value: "Search the docs", Nth: -1}},
		{"role=button", Selector{Kind: KindRole, Role: "button", Nth: -1}},
		{`role=button[name="Save"]`, Selector{Kind: KindRole, Role: "button", Name: "Save", Exact: true, Nth: -1}},
		{`role=Link[name=Home]`, Selector{Kind: KindRole, Role: "link", Name: "Home", Nth: -1}},
		{`role=button[name="Save" i]`, Selector{Kind: KindRole, Role: "button", Name: "Save", Nth: -1}},
		{`role=button[name=Save s]`, Selector{Kind: KindRole, Role: "button", Name: "Save", Exact: true, Nth: -1}},
		{"text=Save >> nth=1", Selector{Kind: KindText, Value: "Save", Nth: 1}},
		{"  button.primary >> nth=0 ", Selector{Kind: KindCSS, Value: "button.primary", Nth: 0}},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseSelector(c.in)
			if err != nil {
				t.Fatalf("ParseSelector(%q): %v", c.in, err)
			}
			if got != c.want {
				t.Errorf("ParseSelector(%q)\n got %+v\nwant %+v", c.in, got, c.want)
			}
			again, err := ParseSelector(got.String())
			if err != nil || again != got {
				t.Errorf("round trip through %q: got %+v, %v", got.String(), again, err)
			}
		})
	}
}

func TestParseSelectorErrors(t *testing.T) {
	for _, in := range []string{"", "text=", `text="open`, "role=", `role=button[name="x"`, `role=button[checked]`,
		`role=button[level=2]`, "x >> nth=-1", "x >> nth=two", `role=bu tton`} {
		if got, err := ParseSelector(in); err == nil {
			t.Errorf("ParseSelector(%q) = %+v, want an error", in, got)
		}
	}
}

func TestURLMatcher(t *testing.T) {
	for _, c := range []struct {
		pattern, url string
		want         bool
	}{
		{"/checkout", "https://shop.example/checkout?step=2", true},
		{"/checkout", "https://shop.example/cart", false},
		{"*/form.html", "http://127.0.0.1:8/pages/form.html", true},
		{"slow.html?api=*", "http://127.0.0.1:8/pages/slow.html?api=http://x", true},
		{"https://*.example/done", "https://shop.example/done", true},
		{"https://*.example/done", "https://shop.example/done/more", false},
		{"https://*.example/done", "http://shop.example/done", false},
		{"order=*&paid=1", "https://x/?order=7&paid=1", true},
	} {
		if got := urlMatcher(c.pattern)(c.url); got != c.want {
			t.Errorf("urlMatcher(%q)(%q) = %v, want %v", c.pattern, c.url, got, c.want)
		}
	}
}
