package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Args is every argument of the catalogue (params.go), typed: a call's
// arguments are decoded into it once, by Parse, after validation; the
// gate, the handler, the recorder and the exporter all read this one
// value. A field is the zero value when the call did not give the
// argument; where zero is a value of its own (timeout_ms 0, checked
// false), the field is a pointer. TestArgsMatchCatalogue keeps the fields
// and the catalogue in step.
type Args struct {
	// Universal and common.
	TimeoutMS  *int   `json:"timeout_ms,omitempty"`
	Background bool   `json:"background,omitempty"`
	ApprovalID string `json:"approval_id,omitempty"`
	TabID      int    `json:"tab_id,omitempty"`
	Browser    string `json:"browser,omitempty"`
	Frame      string `json:"frame,omitempty"`

	// Targets.
	Ref        string   `json:"ref,omitempty"`
	Selector   string   `json:"selector,omitempty"`
	X          *float64 `json:"x,omitempty"`
	Y          *float64 `json:"y,omitempty"`
	ToRef      string   `json:"to_ref,omitempty"`
	ToSelector string   `json:"to_selector,omitempty"`
	ToX        *float64 `json:"to_x,omitempty"`
	ToY        *float64 `json:"to_y,omitempty"`

	// Interaction.
	URL        string   `json:"url,omitempty"`
	WaitUntil  string   `json:"wait_until,omitempty"`
	Text       string   `json:"text,omitempty"`
	Clear      bool     `json:"clear,omitempty"`
	Value      string   `json:"value,omitempty"`
	Checked    *bool    `json:"checked,omitempty"`
	Keys       string   `json:"keys,omitempty"`
	Button     string   `json:"button,omitempty"`
	Modifiers  string   `json:"modifiers,omitempty"`
	ClickCount int      `json:"click_count,omitempty"`
	Fields     []Field  `json:"fields,omitempty"`
	Submit     bool     `json:"submit,omitempty"`
	Files      []string `json:"files,omitempty"`
	// FileContents are upload's files by content.
	FileContents []FileContent `json:"file_contents,omitempty"`
	Script       string        `json:"script,omitempty"`
	Accept       *bool         `json:"accept,omitempty"`
	PromptText   string        `json:"prompt_text,omitempty"`
	NetworkIdle  bool          `json:"network_idle,omitempty"`
	IdleMS       int           `json:"idle_ms,omitempty"`
	State        string        `json:"state,omitempty"`
	Name         string        `json:"name,omitempty"`
	// Arguments are a page tool's arguments, as the page's schema says.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Steps     []Step          `json:"steps,omitempty"`

	// interact plan: what the agent means to do, on which origins, with
	// which modes, for how long, and the high-risk items it names.
	Intent  string     `json:"intent,omitempty"`
	Origins []string   `json:"origins,omitempty"`
	Actions []string   `json:"actions,omitempty"`
	Minutes int        `json:"minutes,omitempty"`
	High    []PlanItem `json:"high,omitempty"`

	// Reading and paging.
	Limit           int    `json:"limit,omitempty"`
	AfterCursor     string `json:"after_cursor,omitempty"`
	Summary         bool   `json:"summary,omitempty"`
	InteractiveOnly bool   `json:"interactive_only,omitempty"`
	Depth           int    `json:"depth,omitempty"`
	Find            string `json:"find,omitempty"`
	Diff            bool   `json:"diff,omitempty"`
	FullPage        bool   `json:"full_page,omitempty"`
	Format          string `json:"format,omitempty"`
	Quality         int    `json:"quality,omitempty"`
	ToFile          bool   `json:"to_file,omitempty"`
	Level           string `json:"level,omitempty"`
	Method          string `json:"method,omitempty"`
	Status          string `json:"status,omitempty"`
	Type            string `json:"type,omitempty"`
	Scope           string `json:"scope,omitempty"`
	RequestID       string `json:"request_id,omitempty"`
	BodyPath        string `json:"body_path,omitempty"`
	Origin          string `json:"origin,omitempty"`
	CorrelationID   string `json:"correlation_id,omitempty"`

	// Analysis and generation.
	WCAGLevel  string   `json:"wcag_level,omitempty"`
	SameOrigin *bool    `json:"same_origin,omitempty"`
	Baseline   string   `json:"baseline,omitempty"`
	Threshold  *float64 `json:"threshold,omitempty"`
	ReportOnly bool     `json:"report_only,omitempty"`

	// Developer tools: emulation, routes, traces. A pointer is an argument
	// whose zero value says something of its own ("" clears a setting).
	Device        *string           `json:"device,omitempty"`
	Viewport      *Viewport         `json:"viewport,omitempty"`
	ColorScheme   *string           `json:"color_scheme,omitempty"`
	ReducedMotion *bool             `json:"reduced_motion,omitempty"`
	Locale        *string           `json:"locale,omitempty"`
	Timezone      *string           `json:"timezone,omitempty"`
	Geolocation   *Geolocation      `json:"geolocation,omitempty"`
	Network       *string           `json:"network,omitempty"`
	CPUSlowdown   *float64          `json:"cpu_slowdown,omitempty"`
	Reset         bool              `json:"reset,omitempty"`
	URLPattern    string            `json:"url_pattern,omitempty"`
	Block         bool              `json:"block,omitempty"`
	StatusCode    int               `json:"status_code,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	Body          *string           `json:"body,omitempty"`
	DelayMS       int               `json:"delay_ms,omitempty"`
	DurationMS    int               `json:"duration_ms,omitempty"`

	// Configuration.
	Tool                string          `json:"tool,omitempty"`
	Mode                string          `json:"mode,omitempty"`
	Buffer              string          `json:"buffer,omitempty"`
	Op                  string          `json:"op,omitempty"`
	Rules               json.RawMessage `json:"rules,omitempty"`
	Pattern             string          `json:"pattern,omitempty"`
	Key                 string          `json:"key,omitempty"`
	Events              []string        `json:"events,omitempty"`
	RateLimitPerMin     int             `json:"rate_limit_per_min,omitempty"`
	DedupeWindowSeconds int             `json:"dedupe_window_seconds,omitempty"`
}

// Field is one fill_form field: a target and the value to put there.
type Field struct {
	Ref      string   `json:"ref,omitempty"`
	Selector string   `json:"selector,omitempty"`
	X        *float64 `json:"x,omitempty"`
	Y        *float64 `json:"y,omitempty"`
	Frame    string   `json:"frame,omitempty"`
	// Value is a string, a number or a boolean (a checkbox).
	Value any `json:"value"`
}

// PlanItem is one high-risk action an interact plan names: its mode, the
// kind of risk (submit, download, named) and what it is about (an origin,
// or the word a control's name holds).
type PlanItem struct {
	What   string `json:"what"`
	Risk   string `json:"risk"`
	Target string `json:"target,omitempty"`
}

// Viewport is interact emulate's viewport, in CSS pixels ({width:0,
// height:0} clears it).
type Viewport struct {
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	DeviceScale float64 `json:"device_scale,omitempty"`
	Mobile      bool    `json:"mobile,omitempty"`
}

// Geolocation is what interact emulate makes navigator.geolocation
// report.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"`
}

// FileContent is one file of an upload by content.
type FileContent struct {
	Name   string `json:"name"`
	Type   string `json:"type,omitempty"`
	Base64 string `json:"base64"`
}

// Step is one step of an interact batch: its mode and its arguments. Parse
// validates each step as a call of its mode and resolves the older alias
// action, so What is always set on a parsed call.
type Step struct {
	What string
	Args Args
}

// UnmarshalJSON reads {what|action, …args}.
func (s *Step) UnmarshalJSON(b []byte) error {
	var head struct {
		What   string `json:"what"`
		Action string `json:"action"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	s.What = head.What
	if s.What == "" {
		s.What = head.Action
	}
	return json.Unmarshal(b, &s.Args)
}

// MarshalJSON writes the step back as {what, …args}.
func (s Step) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(s.Args)
	if err != nil {
		return nil, err
	}
	what, _ := json.Marshal(s.What)
	if string(raw) == "{}" {
		return []byte(`{"what":` + string(what) + `}`), nil
	}
	return []byte(`{"what":` + string(what) + "," + string(raw[1:])), nil
}

// Canonical is the arguments' one JSON encoding (fields in declaration
// order, rules and a page tool's arguments re-encoded with sorted keys), without the ones that only
// say how a call runs (approval_id, timeout_ms, background): what an
// approval is bound to.
func (a Args) Canonical() []byte {
	a.ApprovalID, a.TimeoutMS, a.Background = "", nil, false
	for _, raw := range []*json.RawMessage{&a.Rules, &a.Arguments} {
		if len(*raw) > 0 {
			var v any
			if json.Unmarshal(*raw, &v) == nil {
				*raw, _ = json.Marshal(v)
			}
		}
	}
	raw, _ := json.Marshal(a)
	return raw
}

// Named returns the value of the argument called name, by its JSON name
// (nil for none): for code that handles arguments by name (a mode
// definition naming one, Mode.Shows).
func (a *Args) Named(name string) any {
	i, ok := argFields()[name]
	if !ok {
		return nil
	}
	return reflect.ValueOf(a).Elem().Field(i).Interface()
}

// argFields maps each JSON name of Args to its field index.
var argFields = sync.OnceValue(func() map[string]int {
	t := reflect.TypeFor[Args]()
	out := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			panic(fmt.Sprintf("tools: Args.%s has no JSON name", t.Field(i).Name))
		}
		out[name] = i
	}
	return out
})
