package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, tool, args string
		mode             string // want this mode on success
		code             string // or this error code
		msg              string // contained in the message
	}{
		{"what", "observe", `{"what":"page"}`, "page", "", ""},
		{"action alias", "observe", `{"action":"page"}`, "page", "", ""},
		{"both agree", "observe", `{"what":"page","action":"page"}`, "page", "", ""},
		{"both disagree", "observe", `{"what":"page","action":"tabs"}`, "", CodeInvalidArgument, "disagree"},
		{"no what", "observe", `{}`, "", CodeInvalidArgument, "needs what, one of: actions, approvals"},
		{"null args", "configure", `null`, "", CodeInvalidArgument, "needs what"},
		{"what not string", "observe", `{"what":3}`, "", CodeInvalidArgument, "must be a string"},
		{"args not object", "observe", `[1]`, "", CodeInvalidArgument, "must be a JSON object"},
		{"unknown mode", "observe", `{"what":"snap"}`, "", CodeUnknownMode, `(did you mean "snapshot"?)`},
		{"unknown mode far", "observe", `{"what":"zzzzzz"}`, "", CodeUnknownMode, "valid modes: actions"},
		{"missing required", "interact", `{"what":"navigate"}`, "", CodeInvalidArgument, "needs url"},
		{"wrong type", "interact", `{"what":"navigate","url":5}`, "", CodeInvalidArgument, "url must be a string, got a number"},
		{"enum", "interact", `{"what":"navigate","url":"https://a/","wait_until":"soon"}`, "", CodeInvalidArgument, "must be one of load, domcontentloaded, network_idle"},
		{"integer", "observe", `{"what":"errors","limit":2.5}`, "", CodeInvalidArgument, "limit must be an integer"},
		{"bounds", "observe", `{"what":"errors","limit":5000}`, "", CodeInvalidArgument, "between 1 and 1000"},
		{"timeout bounds", "observe", `{"what":"page","timeout_ms":-1}`, "", CodeInvalidArgument, "timeout_ms must be between 0 and 300000"},
		{"unknown arg", "observe", `{"what":"page","colour":"red"}`, "", CodeInvalidArgument, `takes no argument "colour"; it accepts: tab_id, timeout_ms, background`},
		{"one of", "interact", `{"what":"click"}`, "", CodeInvalidArgument, "needs one of ref, selector, x"},
		{"x without y", "interact", `{"what":"click","x":1}`, "", CodeInvalidArgument, "x and y go together"},
		{"x and y", "interact", `{"what":"click","x":1,"y":2}`, "click", "", ""},
		{"ref", "interact", `{"what":"click","ref":"e1","approval_id":"ap"}`, "click", "", ""},
		{"approval_id on read-only", "observe", `{"what":"page","approval_id":"ap"}`, "", CodeInvalidArgument, "takes no argument"},
		{"array items", "interact", `{"what":"upload","ref":"e1","files":["a",2]}`, "", CodeInvalidArgument, "files[1] must be a string"},
		{"per-mode enum", "configure", `{"what":"agent_watch","op":"explode"}`, "", CodeInvalidArgument, "must be one of enable, disable, status"},
		{"common arg", "interact", `{"what":"get_text","selector":"h1","tab_id":3,"frame":"f"}`, "get_text", "", ""},
		{"describe", "configure", `{"what":"describe_capabilities","tool":"interact","mode":"navigate"}`, "describe_capabilities", "", ""},
		{"describe bad tool", "configure", `{"what":"describe_capabilities","tool":"nope"}`, "", CodeInvalidArgument, "must be one of observe"},
		{"unknown tool", "nope", `{}`, "", CodeInvalidArgument, "unknown tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, e := Parse(tt.tool, json.RawMessage(tt.args))
			if tt.code == "" {
				if e != nil {
					t.Fatalf("Parse(%s) error %v, want mode %s", tt.args, e, tt.mode)
				}
				if c.Mode.Name != tt.mode {
					t.Fatalf("mode = %s, want %s", c.Mode.Name, tt.mode)
				}
				return
			}
			if e == nil {
				t.Fatalf("Parse(%s) = %s, want error %s", tt.args, c, tt.code)
			}
			if e.Code != tt.code || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %s: %s\nwant %s containing %q", e.Code, e.Message, tt.code, tt.msg)
			}
			if e.Code != "" && tt.tool != "nope" && e.NextAction == nil {
				t.Errorf("error has no next_action")
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	c, e := Parse("observe", json.RawMessage(`{"what":"page"}`))
	if e != nil {
		t.Fatal(e)
	}
	if c.TimeoutMS != DefaultTimeoutMS || c.Background {
		t.Errorf("timeout %d background %v, want %d false", c.TimeoutMS, c.Background, DefaultTimeoutMS)
	}
	c, _ = Parse("observe", json.RawMessage(`{"what":"page","timeout_ms":250,"background":true}`))
	if c.TimeoutMS != 250 || !c.Background {
		t.Errorf("timeout %d background %v, want 250 true", c.TimeoutMS, c.Background)
	}
	if _, ok := c.Args["what"]; ok {
		t.Error("what left in Args")
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Code: "x", Message: "m.", RetryAfterMS: 5, NextAction: Describe("observe", "")}
	want := `x: m. Retry after 5 ms. Next: configure {"tool":"observe","what":"describe_capabilities"}`
	if got := e.Text(); got != want {
		t.Errorf("Text() = %s\nwant %s", got, want)
	}
}

func TestGuide(t *testing.T) {
	m, _ := Lookup("interact", "navigate")
	g := m.Guide(false)
	if g.Class != Mutating || g.Approval == "none" || g.Available {
		t.Errorf("guide = %+v", g)
	}
	var names []string
	for _, a := range g.Args {
		names = append(names, a.Name)
	}
	if got, want := strings.Join(names, " "), "url wait_until browser tab_id frame approval_id timeout_ms background"; got != want {
		t.Errorf("guide args %q, want %q", got, want)
	}
	if g.Example["url"] != "https://example.com/" {
		t.Errorf("example %v", g.Example)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("interact", `{"what":"click","ref":"e1"}`)
	f.Add("observe", `{"action":"logs","level":"error","limit":10}`)
	f.Add("configure", `{"what":"describe_capabilities","tool":"observe"}`)
	f.Add("interact", `{"what":"fill_form","fields":[{"ref":"e1","value":"x"}]}`)
	f.Fuzz(func(t *testing.T, tool, args string) {
		c, e := Parse(tool, json.RawMessage(args))
		if (c == nil) == (e == nil) {
			t.Fatalf("Parse returned call %v and error %v", c, e)
		}
		if e != nil && (e.Code == "" || e.Message == "") {
			t.Fatalf("unstructured error %+v", e)
		}
		if c != nil {
			if _, err := Classify(c.Tool.Name, c.Mode.Name); err != nil {
				t.Fatalf("accepted unclassified %s", c)
			}
		}
	})
}
