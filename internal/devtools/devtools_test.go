package devtools

import (
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/gasoline-mcp/gasoline/internal/route"
)

func TestPDFPages(t *testing.T) {
	doc := "%PDF-1.4\n1 0 obj <</Type /Pages /Count 3 /Kids [2 0 R 3 0 R 4 0 R]>> endobj\n" +
		"2 0 obj <</Type /Page /Parent 1 0 R>> endobj\n3 0 obj <</Type/Page>> endobj\n4 0 obj <</Type /Page>> endobj\n"
	if got := pdfPages([]byte(doc)); got != 3 {
		t.Errorf("page objects: %d", got)
	}
	if got := pdfPages([]byte("<</Type /Pages /Count 7>>")); got != 7 {
		t.Errorf("/Count only: %d", got)
	}
	if got := pdfPages([]byte("not a pdf")); got != 0 {
		t.Errorf("garbage: %d", got)
	}
}

func TestDataURL(t *testing.T) {
	tests := []struct{ in, body, typ string }{
		{"data:text/csv;base64,YSxiCjEsMgo=", "a,b\n1,2\n", "text/csv"},
		{"data:text/plain;charset=utf-8,hello%20world", "hello world", "text/plain"},
		{"data:,x", "x", ""},
	}
	for _, tt := range tests {
		b, typ, err := dataURL(tt.in)
		if err != nil || string(b) != tt.body || typ != tt.typ {
			t.Errorf("%s: %q %q %v", tt.in, b, typ, err)
		}
	}
	if _, _, err := dataURL("data:nocomma"); err == nil {
		t.Error("a data: URL without a comma was read")
	}
}

func TestDescribe(t *testing.T) {
	n := &cdproto.Node{NodeType: 1, LocalName: "img", Attributes: []string{"id", "hero", "style", "x", "src", strings.Repeat("a", 200), "alt", "Hero"}}
	got := describe(n)
	if !strings.HasPrefix(got, `<img id="hero" src="aaa`) || !strings.Contains(got, `… (120 bytes more)" alt="Hero">`) || strings.Contains(got, "style") {
		t.Errorf("describe = %s", got)
	}
	if got := describe(&cdproto.Node{NodeType: 3, NodeName: "#text"}); got != "#text" {
		t.Errorf("text node: %s", got)
	}
}

func TestRouteText(t *testing.T) {
	body := `{"a":1}`
	got := routeText(route.Spec{Pattern: "*/api/*", Method: "POST", Type: "XHR", DelayMS: 300, Body: &body})
	want := `POST "*/api/*" (xhr) → wait 300 ms → answer 200, Content-Type: application/json with 7 bytes: {"a":1}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := routeText(route.Spec{Pattern: "*", Block: true}); got != `"*" → block` {
		t.Error(got)
	}
	long := strings.Repeat("é", 400)
	if got := routeText(route.Spec{Pattern: "*", Body: &long}); !strings.Contains(got, "bytes more)") {
		t.Errorf("a long body is cut: %s", got[:80])
	}
}
