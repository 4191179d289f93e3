package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Call is a validated tool call.
type Call struct {
	Tool *Tool
	Mode *Mode
	// Args holds the arguments other than what/action, as decoded JSON
	// (numbers are json.Number).
	Args map[string]any
	// Raw is the arguments as the client sent them, for a handler that
	// decodes them into its own typed struct (once: mcpserver.Decoded).
	Raw        json.RawMessage
	TimeoutMS  int
	Background bool
}

// String returns "tool.mode" for logs.
func (c *Call) String() string { return c.Mode.Key() }

// Str returns a string argument, or "".
func (c *Call) Str(name string) string {
	s, _ := c.Args[name].(string)
	return s
}

// Int returns an integer argument, or def.
func (c *Call) Int(name string, def int) int {
	if n, ok := c.Args[name].(json.Number); ok {
		if v, err := n.Int64(); err == nil {
			return int(v)
		}
	}
	return def
}

// Bool returns a boolean argument, or false.
func (c *Call) Bool(name string) bool {
	b, _ := c.Args[name].(bool)
	return b
}

// Parse validates the arguments of a call to tool and resolves its mode.
// Every failure is a structured *Error that says how to fix the call.
func Parse(tool string, raw json.RawMessage) (*Call, *Error) {
	t, ok := Get(tool)
	if !ok {
		return nil, Errorf(CodeInvalidArgument, "unknown tool %q; the tools are observe, interact, analyze, generate, configure", tool)
	}
	args, err := decodeObject(raw)
	if err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s arguments must be a JSON object (%v)", tool, err), NextAction: Describe(tool, "")}
	}
	what, e := resolveWhat(t, args)
	if e != nil {
		return nil, e
	}
	m := t.Mode(what)
	if m == nil {
		return nil, unknownMode(t, what)
	}
	if _, err := Classify(t.Name, what); err != nil {
		return nil, Errorf(CodeUnclassified, "%s %s has no safety classification, so it is refused; this is a Gasoline bug, please report it", t.Name, what)
	}
	if e := checkArgs(m, args); e != nil {
		return nil, e
	}
	c := &Call{Tool: t, Mode: m, Args: args, Raw: raw, Background: false, TimeoutMS: DefaultTimeoutMS}
	c.TimeoutMS = c.Int("timeout_ms", DefaultTimeoutMS)
	c.Background = c.Bool("background")
	return c, nil
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("got %s", jsonType(v))
	}
	return m, nil
}

// resolveWhat reads `what`, accepting the older `action` as an alias, and
// removes both from args.
func resolveWhat(t *Tool, args map[string]any) (string, *Error) {
	w, hasW := args["what"]
	a, hasA := args["action"]
	delete(args, "what")
	delete(args, "action")
	modes := strings.Join(t.ModeNames(), ", ")
	ws, wok := w.(string)
	as, aok := a.(string)
	switch {
	case hasW && !wok, hasA && !aok:
		return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: what must be a string, one of: %s", t.Name, modes), NextAction: Describe(t.Name, "")}
	case hasW && hasA && ws != as:
		return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s: what %q and its alias action %q disagree; send only what", t.Name, ws, as), NextAction: Describe(t.Name, "")}
	case hasW:
		return ws, nil
	case hasA:
		return as, nil
	}
	return "", &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s needs what, one of: %s", t.Name, modes), NextAction: Describe(t.Name, "")}
}

func unknownMode(t *Tool, what string) *Error {
	msg := fmt.Sprintf("%s has no mode %q; valid modes: %s", t.Name, what, strings.Join(t.ModeNames(), ", "))
	if near := closest(what, t.ModeNames()); near != "" {
		msg = fmt.Sprintf("%s has no mode %q (did you mean %q?); valid modes: %s", t.Name, what, near, strings.Join(t.ModeNames(), ", "))
	}
	return &Error{Code: CodeUnknownMode, Message: msg, NextAction: Describe(t.Name, "")}
}

// checkArgs checks names, types, enums, bounds, required arguments and
// alternatives.
func checkArgs(m *Mode, args map[string]any) *Error {
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	slices.Sort(names) // deterministic error for several bad arguments
	for _, k := range names {
		a, ok := m.Arg(k)
		if !ok {
			return argError(m, "%s %s takes no argument %q; it accepts: %s", m.Tool, m.Name, k, strings.Join(argNames(m), ", "))
		}
		if msg := checkValue(a.Param, args[k]); msg != "" {
			return argError(m, "%s %s: %s%s", m.Tool, m.Name, k, msg)
		}
	}
	for _, a := range m.Args {
		if _, ok := args[a.Name]; a.Required && !ok {
			return argError(m, "%s %s needs %s (%s: %s)", m.Tool, m.Name, a.Name, a.Type, a.Desc)
		}
	}
	for _, group := range m.OneOf {
		if !slices.ContainsFunc(group, func(n string) bool { _, ok := args[n]; return ok }) {
			return argError(m, "%s %s needs one of %s", m.Tool, m.Name, strings.Join(group, ", "))
		}
	}
	_, hasX := args["x"]
	_, hasY := args["y"]
	if hasX != hasY {
		return argError(m, "%s %s: x and y go together", m.Tool, m.Name)
	}
	return nil
}

func argError(m *Mode, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...), NextAction: Describe(m.Tool, m.Name)}
}

func argNames(m *Mode) []string {
	var names []string
	for _, a := range m.AllArgs() {
		names = append(names, a.Name)
	}
	return names
}

// checkValue returns "" when v fits p, else what is wrong with it.
func checkValue(p Param, v any) string {
	if !typeOK(p.Type, v) {
		return fmt.Sprintf(" must be %s %s, got %s", article(p.Type), p.Type, jsonType(v))
	}
	if p.Type == Array && p.Items != "" {
		for i, e := range v.([]any) {
			if !typeOK(p.Items, e) {
				return fmt.Sprintf("[%d] must be %s %s, got %s", i, article(p.Items), p.Items, jsonType(e))
			}
		}
	}
	if len(p.Enum) > 0 && !slices.Contains(p.Enum, v.(string)) {
		return fmt.Sprintf(" must be one of %s, got %q", strings.Join(p.Enum, ", "), v)
	}
	if n, ok := v.(json.Number); ok {
		f, _ := n.Float64()
		if p.Min != nil && f < *p.Min || p.Max != nil && f > *p.Max {
			return fmt.Sprintf(" must be between %v and %v, got %s", orInf(p.Min, -1), orInf(p.Max, 1), n)
		}
	}
	return ""
}

func orInf(b *float64, sign int) any {
	if b == nil {
		if sign < 0 {
			return "-inf"
		}
		return "inf"
	}
	return *b
}

func typeOK(t Type, v any) bool {
	switch t {
	case String:
		_, ok := v.(string)
		return ok
	case Boolean:
		_, ok := v.(bool)
		return ok
	case Number:
		_, ok := v.(json.Number)
		return ok
	case Integer:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53
	case Array:
		_, ok := v.([]any)
		return ok
	case Object:
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func article(t Type) string {
	if t == Integer || t == Array || t == Object {
		return "an"
	}
	return "a"
}

// closest returns the candidate nearest to s by edit distance, or "" when
// none is close.
func closest(s string, candidates []string) string {
	best, bestD := "", math.MaxInt
	for _, c := range candidates {
		d := editDistance(s, c)
		if len(s) >= 3 && strings.Contains(c, s) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > 2 && (bestD > 3 || len(s) < 8) {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
