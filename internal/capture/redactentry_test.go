package capture

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

func TestRedactEntryEveryFieldAndFailClosed(t *testing.T) {
	e, err := redact.New(redact.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	tok := "ghp_" + strings.Repeat("Zq3KxT9w", 4) + "Lm2V"
	for _, v := range []any{
		ConsoleEntry{Text: "t " + tok, URL: "https://a.example/?token=" + tok, Stack: []Frame{{URL: "https://a.example/x.js?access_token=" + tok, Function: tok}}},
		Exception{Message: tok, URL: "https://a.example/?token=" + tok},
		Request{URL: "https://a.example/?token=" + tok, InitiatorURL: "https://a.example/?token=" + tok, StatusText: tok, ErrorText: tok},
		WebSocketEvent{URL: "wss://a.example/?token=" + tok, Payload: tok, Error: tok},
		Dialog{URL: "https://a.example/?token=" + tok, Message: tok, DefaultPrompt: tok, UserInput: tok},
		Navigation{URL: "https://a.example/?token=" + tok},
	} {
		f := &redact.Fields{E: e}
		out, err := RedactEntry(f, v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if strings.Contains(fmt.Sprintf("%+v", out), tok) {
			t.Errorf("%T kept the planted token: %+v", v, out)
		}
		if f.Stats.Redacted == 0 {
			t.Errorf("%T: nothing counted", v)
		}
	}
	type unknown struct{ Text string }
	_, err = RedactEntry(&redact.Fields{E: e}, unknown{Text: tok})
	if !errors.Is(err, redact.ErrBlocked) {
		t.Fatalf("an entry type without a rule: %v, want ErrBlocked", err)
	}
}
