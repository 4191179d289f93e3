package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Call is a validated tool call.
type Call struct {
	Tool *Tool
	Mode *Mode
	// Args are the arguments, decoded once, typed, after validation
	// (what and action are not among them). Batch steps are validated as
	// calls of their own mode, their alias action resolved.
	Args Args
	// Raw is the arguments as the client sent them.
	Raw        json.RawMessage
	TimeoutMS  int
	Background bool
}

// String returns "tool.mode" for logs.
func (c *Call) String() string { return c.Mode.Key() }

// Str returns a string argument by name, or "".
//
// Deprecated: read the typed c.Args.
func (c *Call) Str(name string) string {
	s, _ := c.Args.Named(name).(string)
	return s
}

// Int returns an integer argument by name, or def when it was not given.
//
// Deprecated: read the typed c.Args.
func (c *Call) Int(name string, def int) int {
	switch v := c.Args.Named(name).(type) {
	case int:
		if v != 0 {
			return v
		}
	case *int:
		if v != nil {
			return *v
		}
	}
	return def
}

// Bool returns a boolean argument by name, or false.
//
// Deprecated: read the typed c.Args.
func (c *Call) Bool(name string) bool {
	switch v := c.Args.Named(name).(type) {
	case bool:
		return v
	case *bool:
		return v != nil && *v
	}
	return false
}

// Parse validates the arguments of a call to tool, resolves its mode and
// decodes the arguments once into the typed Args. Every failure is a
// structured *Error that says how to fix the call.
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
	if e := checkArgs(m, args, m.Arg); e != nil {
		return nil, e
	}
	c := &Call{Tool: t, Mode: m, Raw: raw, TimeoutMS: DefaultTimeoutMS}
	if e := decodeArgs(m, raw, &c.Args); e != nil {
		return nil, e
	}
	if c.Args.TimeoutMS != nil {
		c.TimeoutMS = *c.Args.TimeoutMS
	}
	c.Background = c.Args.Background
	return c, nil
}

// decodeArgs decodes validated arguments into their typed form.
func decodeArgs(m *Mode, raw json.RawMessage, into *Args) *Error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, into); err != nil {
		// Validation checked the types of the arguments; what it does not
		// see inside an object (a field's x given as a string) fails here.
		return argError(m, "%s %s: an argument does not have the shape described (%v)", m.Tool, m.Name, err)
	}
	return nil
}

// fields are a JSON object's members, kept raw: validation reads each
// against its catalogue entry before the one typed decode.
type fields map[string]json.RawMessage

func decodeObject(raw json.RawMessage) (fields, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return fields{}, nil
	}
	if raw[0] != '{' {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("got %s", jsonType(raw))
	}
	var f fields
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	if f == nil {
		f = fields{}
	}
	return f, nil
}

// resolveWhat reads `what`, accepting the older `action` as an alias, and
// removes both from args.
func resolveWhat(t *Tool, args fields) (string, *Error) {
	wr, hasW := args["what"]
	ar, hasA := args["action"]
	delete(args, "what")
	delete(args, "action")
	modes := strings.Join(t.ModeNames(), ", ")
	var ws, as string
	wok := hasW && json.Unmarshal(wr, &ws) == nil && jsonType(wr) == "a string"
	aok := hasA && json.Unmarshal(ar, &as) == nil && jsonType(ar) == "a string"
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
// alternatives; accepts names the arguments a call may carry. A batch's
// steps are each checked as a call of their mode.
func checkArgs(m *Mode, args fields, accepts func(string) (Arg, bool)) *Error {
	names := slices.Sorted(maps.Keys(args)) // deterministic error for several bad arguments
	for _, k := range names {
		a, ok := accepts(k)
		if !ok {
			return argError(m, "%s %s takes no argument %q; it accepts: %s", m.Tool, m.Name, k, strings.Join(argNames(m, accepts), ", "))
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
	if m.Steps {
		return checkSteps(m, args["steps"])
	}
	return nil
}

// checkSteps checks each step of a batch as a call of its mode: one the
// actions engine runs (Mode.Step), with the mode's own arguments, the
// frame and a timeout_ms of its own (wait_for).
func checkSteps(batch *Mode, raw json.RawMessage) *Error {
	var steps []json.RawMessage
	if json.Unmarshal(raw, &steps) != nil {
		return nil // the type check said so already
	}
	t, _ := Get(batch.Tool)
	for i, s := range steps {
		args, err := decodeObject(s)
		if err != nil {
			return argError(batch, "step %d must be an object {what, ...arguments}", i+1)
		}
		what, e := resolveWhat(t, args)
		if e != nil {
			return argError(batch, "step %d: %s", i+1, e.Message)
		}
		m := t.Mode(what)
		if m == nil || m.Steps {
			return argError(batch, "step %d: %q is not an interact action mode; a step is one of: %s", i+1, what, strings.Join(stepModes(t), ", "))
		}
		if !m.Step {
			return argError(batch, "step %d: %s cannot run inside a batch; call interact %s on its own", i+1, what, what)
		}
		accepts := func(name string) (Arg, bool) {
			if name == "frame" || name == "timeout_ms" {
				return m.Arg(name)
			}
			for _, a := range m.Args {
				if a.Name == name {
					return a, true
				}
			}
			return Arg{}, false
		}
		if e := checkArgs(m, args, accepts); e != nil {
			return argError(batch, "step %d: %s", i+1, e.Message)
		}
	}
	return nil
}

func stepModes(t *Tool) []string {
	var out []string
	for _, m := range t.Modes {
		if m.Step {
			out = append(out, m.Name)
		}
	}
	return out
}

func argError(m *Mode, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...), NextAction: Describe(m.Tool, m.Name)}
}

func argNames(m *Mode, accepts func(string) (Arg, bool)) []string {
	var names []string
	for _, a := range m.AllArgs() {
		if _, ok := accepts(a.Name); ok {
			names = append(names, a.Name)
		}
	}
	return names
}

// checkValue returns "" when v fits p, else what is wrong with it.
func checkValue(p Param, v json.RawMessage) string {
	if !typeOK(p.Type, v) {
		return fmt.Sprintf(" must be %s %s, got %s", article(p.Type), p.Type, jsonType(v))
	}
	if p.Type == Array && p.Items != "" {
		var items []json.RawMessage
		json.Unmarshal(v, &items)
		for i, e := range items {
			if !typeOK(p.Items, e) {
				return fmt.Sprintf("[%d] must be %s %s, got %s", i, article(p.Items), p.Items, jsonType(e))
			}
		}
	}
	if len(p.Enum) > 0 {
		var s string
		json.Unmarshal(v, &s)
		if !slices.Contains(p.Enum, s) {
			return fmt.Sprintf(" must be one of %s, got %q", strings.Join(p.Enum, ", "), s)
		}
	}
	if p.Type == Number || p.Type == Integer {
		var n json.Number
		json.Unmarshal(v, &n)
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

// typeOK reports whether the JSON value v is of type t. An integer is
// written as one (2, not 2.0 nor 2e0), within ±2^53.
func typeOK(t Type, v json.RawMessage) bool {
	got := jsonType(v)
	switch t {
	case String:
		return got == "a string"
	case Boolean:
		return got == "a boolean"
	case Number:
		return got == "a number"
	case Integer:
		if got != "a number" {
			return false
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		return err == nil && n > -1<<53 && n < 1<<53
	case Array:
		return got == "an array"
	case Object:
		return got == "an object"
	}
	return false
}

// jsonType names the type of a JSON value from its first byte (the value
// is well-formed: it came out of a decoded object).
func jsonType(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch c := v[0]; {
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '[':
		return "an array"
	case c == '{':
		return "an object"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return "an invalid value"
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
