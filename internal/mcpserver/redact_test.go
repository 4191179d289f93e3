package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// fakeRedactor replaces "SECRET" and fails when told to.
type fakeRedactor struct{ fail bool }

func (f fakeRedactor) Text(_, s string) (string, error) {
	if f.fail {
		return "", errors.New("redact: output blocked: engine error")
	}
	return strings.ReplaceAll(s, "SECRET", "[REDACTED:x]"), nil
}

func (f fakeRedactor) JSON(id string, raw []byte) ([]byte, error) {
	s, err := f.Text(id, string(raw))
	return []byte(s), err
}

// TestResultsPassTheRedactor: text and structured content of results and
// errors pass Options.Redact; images pass untouched; a failure blocks the
// whole result with redaction_failed.
func TestResultsPassTheRedactor(t *testing.T) {
	for _, fail := range []bool{false, true} {
		f := newFixture(t, &Options{Redact: fakeRedactor{fail: fail}})
		f.s.Handle("observe", "page", func(context.Context, *Call) (any, error) {
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "title SECRET"}, &mcp.ImageContent{Data: []byte("SECRET-png"), MIMEType: "image/png"}},
				StructuredContent: map[string]any{"title": "SECRET"},
			}, nil
		})
		f.s.Handle("observe", "logs", func(context.Context, *Call) (any, error) {
			return nil, errors.New("page said SECRET")
		})
		cs := f.client(t)
		res, sc := call(t, cs, "observe", map[string]any{"what": "page"})
		if fail {
			if !res.IsError || sc["code"] != CodeRedactionFailed || len(res.Content) != 1 {
				t.Fatalf("failing redactor: %v %v", res.IsError, sc)
			}
			if strings.Contains(res.Content[0].(*mcp.TextContent).Text, "SECRET") {
				t.Fatal("blocked result quotes its content")
			}
			continue
		}
		if body, _ := untrusted.Body(res.Content[0].(*mcp.TextContent).Text); res.IsError || sc["title"] != "[REDACTED:x]" || body != "title [REDACTED:x]" {
			t.Fatalf("redacted result: %v %+v", sc, res.Content[0])
		}
		if img := res.Content[1].(*mcp.ImageContent); string(img.Data) != "SECRET-png" {
			t.Fatalf("image changed: %q", img.Data)
		}
		res, sc = call(t, cs, "observe", map[string]any{"what": "logs"})
		if !res.IsError || strings.Contains(sc["message"].(string), "SECRET") {
			t.Fatalf("error result not redacted: %v", sc)
		}
	}
}
