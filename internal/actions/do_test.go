package actions

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/target"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// deadLink answers every command with an error: enough for the checks
// that run before any page work.
type deadLink struct{}

func (deadLink) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("no browser in unit tests")
}

func testEngine() *Engine {
	set := target.NewSet(context.Background(), target.Config{Caller: deadLink{}})
	return New(Config{Target: set.Get, Snapshots: snapshot.New(snapshot.Config{Target: set.Get})})
}

func TestDoRejectsBadArguments(t *testing.T) {
	e := testEngine()
	ctx := t.Context()
	for _, c := range []struct {
		what, args, code, msg string
	}{
		{"click", `{}`, tools.CodeInvalidArgument, "needs one of ref, selector, x"},
		{"click", `{"selector":"#a","button":"side"}`, tools.CodeInvalidArgument, "button must be"},
		{"click", `{"selector":"#a","click_count":5}`, tools.CodeInvalidArgument, "click_count"},
		{"click", `{"selector":"#a","modifiers":"Hyper"}`, tools.CodeInvalidArgument, "modifiers"},
		{"click", `{"selector":"text="}`, CodeInvalidTarget, "text= needs a value"},
		{"key_press", `{"keys":"Control+Nope"}`, tools.CodeInvalidArgument, "unknown key"},
		{"handle_dialog", `{}`, tools.CodeInvalidArgument, "accept"},
		{"wait_for", `{"text":"a","url":"b"}`, tools.CodeInvalidArgument, "exactly one"},
		{"wait_for", `{"selector":"#a","state":"gone"}`, tools.CodeInvalidArgument, "state must be"},
		{"execute_js", `{"script":"  "}`, tools.CodeInvalidArgument, "script is empty"},
		{"fill_form", `{"fields":[]}`, tools.CodeInvalidArgument, "fields is empty"},
		{"get_attribute", `{"selector":"a"}`, tools.CodeInvalidArgument, "needs name"},
		{"upload", `{"selector":"#f","files":["relative.txt"]}`, CodeRefusedPath, "must be absolute"},
		{"drag", `{"selector":"#a"}`, tools.CodeInvalidArgument, "drag needs"},
		{"batch", `{"steps":[]}`, tools.CodeInvalidArgument, "steps must hold"},
		{"batch", `{"steps":[{"what":"batch"}]}`, tools.CodeInvalidArgument, "not an interact action mode"},
		{"navigate", `{"url":"https://example.com/"}`, tools.CodeUnknownMode, "not an action mode"},
		{"click", `{"selector": 3}`, tools.CodeInvalidArgument, "selector must be a string"},
	} {
		t.Run(c.what+" "+c.args, func(t *testing.T) {
			_, err := e.Do(ctx, 1, c.what, json.RawMessage(c.args))
			var te *tools.Error
			if !errors.As(err, &te) || te.Code != c.code || !strings.Contains(te.Message, c.msg) {
				t.Errorf("Do(%s, %s) = %v; want code %s and %q in the message", c.what, c.args, err, c.code, c.msg)
			}
		})
	}
	if n := e.Queued(1); n != 0 {
		t.Errorf("the tab is still held by %d callers", n)
	}
}

// TestRunnersMatchTheTable: the engine runs exactly the interact modes
// whose definition says they may be a batch step, and batch.
func TestRunnersMatchTheTable(t *testing.T) {
	tool, _ := tools.Get("interact")
	for _, m := range tool.Modes {
		if Runs(m.Name) != (m.Step || m.Steps) {
			t.Errorf("%s: the engine runs it %v, its definition says step %v", m.Key(), Runs(m.Name), m.Step)
		}
	}
	for what := range runners {
		if m := tool.Mode(what); m == nil || !m.Step {
			t.Errorf("the engine runs %q, which is no step mode of the table", what)
		}
	}
}

func TestResultText(t *testing.T) {
	r := &Result{Message: `clicked button "Pay"`, Changes: Changes{
		URL:            &Delta{From: "https://shop/cart", To: "https://shop/pay"},
		Title:          &Delta{From: "Cart", To: "Pay"},
		Navigated:      true,
		Dialogs:        []DialogInfo{{Type: "confirm", Message: "Sure?", Open: true}},
		Errors:         []string{"TypeError: x"},
		FailedRequests: []string{"GET https://shop/api → 500"},
		InFlight:       2,
		Generation:     &[2]int{3, 4},
		More:           1,
	}}
	want := `clicked button "Pay"
changed: navigated (refs are stale: take a new snapshot); url https://shop/cart → https://shop/pay; title "Cart" → "Pay"; ` +
		`confirm dialog "Sure?" is open (answer it with handle_dialog); new errors: TypeError: x; failed requests: GET https://shop/api → 500; ` +
		`1 more errors or failures (observe errors); 2 requests in flight; snapshot generation 3 → 4`
	if got := r.Text(); got != want {
		t.Errorf("Text:\n got %s\nwant %s", got, want)
	}
	if got := (&Result{Message: "pressed Enter"}).Text(); got != "pressed Enter" {
		t.Errorf("Text with no change = %q", got)
	}
}

func TestDeepInto(t *testing.T) {
	raw := `[["el",{"type":"node","value":{"backendNodeId":42,"localName":"button"}}],["desc",{"type":"string","value":"button \"Save\""}],` +
		`["x",{"type":"number","value":10.5}],["checked",{"type":"null"}],["visible",{"type":"boolean","value":true}],["n",{"type":"number","value":"NaN"}]]`
	var p prep
	id, err := deepInto(&runtime.DeepSerializedValue{Type: "object", Value: jsonv2.Value(raw)}, &p)
	if err != nil {
		t.Fatal(err)
	}
	if id != 42 || p.Desc != `button "Save"` || p.X == nil || *p.X != 10.5 || p.Checked != nil || !p.Visible {
		t.Errorf("deepInto = %d, %+v", id, p)
	}
	if _, err := deepInto(&runtime.DeepSerializedValue{Type: "object", Value: jsonv2.Value(`[]`)}, &p); err == nil {
		t.Error("an answer without the element is an error")
	}
}

func TestMergeChanges(t *testing.T) {
	var c Changes
	mergeChanges(&c, Changes{URL: &Delta{From: "a", To: "b"}, Errors: []string{"e1"}})
	mergeChanges(&c, Changes{URL: &Delta{From: "b", To: "c"}, Generation: &[2]int{1, 2}})
	mergeChanges(&c, Changes{Generation: &[2]int{2, 3}, InFlight: 1})
	if c.URL.From != "a" || c.URL.To != "c" || len(c.Errors) != 1 || c.Generation[0] != 1 || c.Generation[1] != 3 || c.InFlight != 1 {
		t.Errorf("merged %+v", c)
	}
}
