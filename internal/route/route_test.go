package route

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "http://x/a", true},
		{"*/api/*", "http://x/api/items?q=1", true},
		{"*/api/*", "http://x/apix/items", false},
		{"http://x/a?c", "http://x/abc", true},
		{"http://x/a?c", "http://x/ac", false},
		{"*.json", "http://x/a.json", true},
		{"*.json", "http://x/a.json?x", false},
		{"*a*b*c", "xxaxxbxxcx", false},
		{"*a*b*c", "xxaxxbxxc", true},
		{`*\*lit*`, "http://x/*lit", true},
		{`*\*lit*`, "http://x/alit", false},
		{`*\?q`, "http://x/?q", true},
		{"", "", true},
		{"", "x", false},
		{"**", "", true},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func body(s string) *string { return &s }

func TestTableMatchesNewestFirst(t *testing.T) {
	var tb Table
	now := time.Unix(1, 0)
	a, err := tb.Add(Spec{Pattern: "*/api/*", Body: body(`{"a":1}`)}, now)
	if err != nil || a.ID != "r1" || a.Effect != "fulfill" {
		t.Fatalf("add: %+v %v", a, err)
	}
	b, _ := tb.Add(Spec{Pattern: "*/api/items*", Method: "get", Type: "fetch", Block: true, DelayMS: 5}, now)
	if b.Effect != "delay+block" || b.Method != "GET" || b.Type != "XHR" {
		t.Fatalf("normalized: %+v", b)
	}
	if r, ok := tb.Match("GET", "http://x/api/items", "XHR", now); !ok || r.ID != "r2" {
		t.Errorf("the newest matching route wins: %+v %v", r, ok)
	}
	if r, ok := tb.Match("POST", "http://x/api/items", "XHR", now); !ok || r.ID != "r1" {
		t.Errorf("another method falls through to the older route: %+v", r)
	}
	if r, ok := tb.Match("GET", "http://x/api/items", "Script", now); !ok || r.ID != "r1" {
		t.Errorf("another type falls through: %+v", r)
	}
	if _, ok := tb.Match("GET", "http://x/other", "XHR", now); ok {
		t.Error("matched an unrelated URL")
	}
	list := tb.List()
	if list[0].Hits != 2 || list[1].Hits != 1 || len(list[0].Recent) != 2 || list[0].Recent[0].Method != "POST" {
		t.Errorf("hits: %+v", list)
	}
	for range keepHits + 3 {
		tb.Match("GET", "http://x/api/z", "Fetch", now)
	}
	if got := len(tb.List()[0].Recent); got != keepHits {
		t.Errorf("recent kept %d, want %d", got, keepHits)
	}
	if gone := tb.Remove("", "*/api/*"); len(gone) != 1 || gone[0].ID != "r1" || tb.Len() != 1 {
		t.Errorf("remove by pattern: %+v", gone)
	}
	if gone := tb.Remove("", ""); len(gone) != 1 || tb.Len() != 0 {
		t.Errorf("remove all: %+v", gone)
	}
}

func TestAddRefusesBadRoutes(t *testing.T) {
	big := strings.Repeat("x", MaxBody+1)
	tests := []struct {
		spec Spec
		want string
	}{
		{Spec{Pattern: " "}, "url_pattern is empty"},
		{Spec{Pattern: "*"}, "say what the route does"},
		{Spec{Pattern: "*", Block: true, Status: 200}, "exclude each other"},
		{Spec{Pattern: "*", Status: 42}, "100 to 599"},
		{Spec{Pattern: "*", DelayMS: 61000}, "delay_ms"},
		{Spec{Pattern: "*", Body: &big}, "at most"},
		{Spec{Pattern: "*", Block: true, Type: "spaceship"}, "not a resource type"},
		{Spec{Pattern: "*", Headers: map[string]string{"Bad Name": "x"}}, "header"},
		{Spec{Pattern: "*", Headers: map[string]string{"X": "a\r\nb"}}, "one line"},
	}
	var tb Table
	for _, tt := range tests {
		_, err := tb.Add(tt.spec, time.Time{})
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, tt.want) {
			t.Errorf("%+v: err %v, want %q", tt.spec, err, tt.want)
		}
	}
	for range MaxRoutes {
		if _, err := tb.Add(Spec{Pattern: "*", Block: true}, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tb.Add(Spec{Pattern: "*", Block: true}, time.Time{}); !errors.Is(err, ErrFull) {
		t.Errorf("past MaxRoutes: %v", err)
	}
}

func TestResponse(t *testing.T) {
	status, hs, b := Spec{Body: body(`{"ok":true}`)}.Response(map[string]string{"origin": "https://app.example"})
	if status != 200 || string(b) != `{"ok":true}` {
		t.Fatalf("%d %s", status, b)
	}
	want := []Header{{"Content-Type", "application/json"}, {"Access-Control-Allow-Origin", "https://app.example"}, {"Access-Control-Allow-Credentials", "true"}}
	if len(hs) != len(want) {
		t.Fatalf("headers %+v", hs)
	}
	for i := range want {
		if hs[i] != want[i] {
			t.Errorf("header %d = %+v, want %+v", i, hs[i], want[i])
		}
	}
	_, hs, _ = Spec{Status: 204, Headers: map[string]string{"content-type": "text/x", "access-control-allow-origin": "*"}}.Response(map[string]string{"Origin": "o"})
	if len(hs) != 2 || hs[0].Value != "*" {
		t.Errorf("the route's own headers are kept and not doubled: %+v", hs)
	}
	_, hs, _ = Spec{Body: body("plain")}.Response(nil)
	if hs[0].Value != "text/plain; charset=utf-8" {
		t.Errorf("text body: %+v", hs)
	}
}

// FuzzGlob: patterns come from agents and URLs from pages; matching
// never panics, and a pattern of only stars matches everything.
func FuzzGlob(f *testing.F) {
	f.Add("*/api/*", "http://x/api/y")
	f.Add(`\*?*\`, "*a")
	f.Fuzz(func(t *testing.T, pattern, s string) {
		Glob(pattern, s)
		if !Glob("*", s) {
			t.Fatalf("* does not match %q", s)
		}
	})
}
