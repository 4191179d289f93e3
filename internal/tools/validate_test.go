package tools

import (
	"encoding/json"
	"reflect"
	"slices"
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
	if c.Args.TimeoutMS == nil || *c.Args.TimeoutMS != 250 {
		t.Errorf("typed timeout_ms = %v, want 250", c.Args.TimeoutMS)
	}
}

// TestParseTyped: the arguments are decoded once, typed, and every reader
// sees the same values — a number is an int (click_count 2 is a double
// click), a batch step written with the older action alias has its mode.
func TestParseTyped(t *testing.T) {
	c, e := Parse("interact", json.RawMessage(`{"what":"click","selector":"#b","click_count":2,"x":null}`))
	if e == nil {
		t.Fatalf("x null accepted: %+v", c.Args)
	}
	c, e = Parse("interact", json.RawMessage(`{"what":"click","selector":"#b","click_count":2}`))
	if e != nil {
		t.Fatal(e)
	}
	if c.Args.ClickCount != 2 || c.Args.Selector != "#b" {
		t.Errorf("click args = %+v, want click_count 2 on #b", c.Args)
	}
	if c.Int("click_count", 1) != 2 || c.Str("selector") != "#b" {
		t.Errorf("by-name reads disagree with the typed args: %d %q", c.Int("click_count", 1), c.Str("selector"))
	}
	c, e = Parse("interact", json.RawMessage(`{"what":"batch","steps":[{"action":"type","selector":"#n","text":"Ada"},{"what":"click","ref":"e2","click_count":2},{"what":"check","ref":"e3","checked":false}]}`))
	if e != nil {
		t.Fatal(e)
	}
	if len(c.Args.Steps) != 3 {
		t.Fatalf("steps = %+v", c.Args.Steps)
	}
	if s := c.Args.Steps[0]; s.What != "type" || s.Args.Text != "Ada" || s.Args.Selector != "#n" {
		t.Errorf("step 1 = %+v, want type Ada into #n", s)
	}
	if s := c.Args.Steps[1]; s.What != "click" || s.Args.ClickCount != 2 {
		t.Errorf("step 2 = %+v, want a double click", s)
	}
	if s := c.Args.Steps[2]; s.Args.Checked == nil || *s.Args.Checked {
		t.Errorf("step 3 checked = %v, want false", s.Args.Checked)
	}
}

func TestParseSteps(t *testing.T) {
	tests := []struct{ name, steps, msg string }{
		{"not an object", `[1]`, "steps[0] must be an object"},
		{"no what", `[{"ref":"e1"}]`, "step 1: interact needs what"},
		{"unknown mode", `[{"what":"clik","ref":"e1"}]`, `step 1: "clik" is not an interact action mode`},
		{"batch in batch", `[{"what":"batch","steps":[]}]`, `step 1: "batch" is not an interact action mode`},
		{"tab mode", `[{"what":"navigate","url":"https://a/"}]`, `step 1: navigate cannot run inside a batch; call interact navigate on its own`},
		{"bad type", `[{"what":"click","ref":"e1"},{"what":"click","ref":"e2","click_count":"2"}]`, "step 2: interact click: click_count must be an integer"},
		{"unknown arg", `[{"what":"get_text","ref":"e1","tab_id":3}]`, `step 1: interact get_text takes no argument "tab_id"`},
		{"missing", `[{"what":"type","ref":"e1"}]`, "step 1: interact type needs text"},
		{"alias disagrees", `[{"what":"click","action":"type","ref":"e1"}]`, "step 1: interact: what \"click\" and its alias action \"type\" disagree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, e := Parse("interact", json.RawMessage(`{"what":"batch","steps":`+tt.steps+`}`))
			if e == nil || e.Code != CodeInvalidArgument || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %v, want invalid_argument containing %q", e, tt.msg)
			}
		})
	}
	if _, e := Parse("interact", json.RawMessage(`{"what":"fill_form","fields":[{"ref":"e1","x":"left","value":"v"}]}`)); e == nil || e.Code != CodeInvalidArgument || !strings.Contains(e.Message, "does not have the shape") {
		t.Errorf("a field of the wrong shape: %v", e)
	}
	if _, e := Parse("interact", json.RawMessage(`{"what":"batch","steps":[{"what":"wait_for","selector":"#a","timeout_ms":100,"frame":"f"}]}`)); e != nil {
		t.Errorf("a step with its own timeout_ms and frame: %v", e)
	}
}

// TestArgsMatchCatalogue: every catalogue argument has its typed field in
// Args, of its JSON type, and every field is an argument of the catalogue.
func TestArgsMatchCatalogue(t *testing.T) {
	fields := argFields()
	for name, p := range catalogue() {
		i, ok := fields[name]
		if !ok {
			t.Errorf("catalogue argument %q has no field in Args", name)
			continue
		}
		f := reflect.TypeFor[Args]().Field(i)
		k := f.Type.Kind()
		if k == reflect.Pointer {
			k = f.Type.Elem().Kind()
		}
		want := map[Type][]reflect.Kind{String: {reflect.String}, Integer: {reflect.Int}, Number: {reflect.Float64},
			Boolean: {reflect.Bool}, Array: {reflect.Slice}, Object: {reflect.Slice, reflect.Struct, reflect.Map}}[p.Type]
		if !slices.Contains(want, k) {
			t.Errorf("Args.%s is %s; %q is %s", f.Name, f.Type, name, p.Type)
		}
	}
	for name := range fields {
		if _, ok := catalogue()[name]; !ok {
			t.Errorf("Args has a field for %q, which is not in the catalogue", name)
		}
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
