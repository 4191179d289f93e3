package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Hints are the MCP tool annotations, derived from the classification of
// the tool's modes: a tool with any mutating or sensitive mode is neither
// read-only nor idempotent, and may be destructive.
type Hints struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// Hints derives the tool's annotations from the table.
func (t *Tool) Hints() Hints {
	ro := !slices.ContainsFunc(t.Modes, func(m *Mode) bool { return m.Class != ReadOnly })
	return Hints{ReadOnly: ro, Destructive: !ro, Idempotent: ro, OpenWorld: t.OpenWorld}
}

// Description is the tool's description in tools/list: the summary, every
// mode with its required arguments (a * marks modes that need approval),
// and where the full guide is.
func (t *Tool) Description() string {
	var b strings.Builder
	b.WriteString(t.Summary)
	b.WriteString(". what: ")
	gated := false
	for i, m := range t.Modes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Name)
		if req := m.requiredSketch(); req != "" {
			b.WriteString("(" + req + ")")
		}
		if m.Class.Gated() {
			b.WriteString("*")
			gated = true
		}
	}
	b.WriteString(".")
	if gated {
		b.WriteString(" * needs the user's approval (approval_id).")
	}
	fmt.Fprintf(&b, ` Arguments: configure describe_capabilities {tool:%q, mode}.`, t.Name)
	if t.hasPageText() && t.Name != "configure" {
		b.WriteString(pageTextNote)
	}
	return b.String()
}

// requiredSketch is "url" or "ref|selector,text": what a call must carry.
func (m *Mode) requiredSketch() string {
	var parts []string
	for _, g := range m.OneOf {
		parts = append(parts, strings.ReplaceAll(strings.Join(g, "|"), "|x", "|x&y"))
	}
	for _, a := range m.Args {
		if a.Required {
			parts = append(parts, a.Name)
		}
	}
	return strings.Join(parts, ",")
}

// InputSchema is the tool's compact JSON Schema: the what enum, the action
// alias and every argument any mode takes, by type (the per-mode detail is
// in describe_capabilities). Built once; callers must not modify it.
func (t *Tool) InputSchema() json.RawMessage {
	if s, ok := schemas()[t.Name]; ok {
		return s
	}
	panic("tools: no schema for " + t.Name)
}

// schemas are built on first use (registry says why).
var schemas = sync.OnceValue(buildSchemas)

func buildSchemas() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, t := range registry().tools {
		raw, err := json.Marshal(schemaOf(t))
		if err != nil {
			panic(err)
		}
		out[t.Name] = raw
	}
	return out
}

type propSchema struct {
	Type        Type        `json:"type"`
	Items       *propSchema `json:"items,omitempty"`
	Enum        []string    `json:"enum,omitempty"`
	Description string      `json:"description,omitempty"`
}

type objectSchema struct {
	Type       string                 `json:"type"`
	Properties map[string]*propSchema `json:"properties"`
	Required   []string               `json:"required,omitempty"`
}

// described are the arguments whose meaning is not obvious from the name;
// their catalogue description is kept in the compact schema.
var described = map[string]bool{"ref": true, "selector": true, "find": true, "timeout_ms": true, "background": true, "approval_id": true, "correlation_id": true}

func schemaOf(t *Tool) objectSchema {
	props := map[string]*propSchema{
		"what":   {Type: String, Enum: t.ModeNames(), Description: "the mode"},
		"action": {Type: String, Description: "older alias of what"},
	}
	for _, m := range t.Modes {
		for _, a := range m.AllArgs() {
			p, seen := props[a.Name]
			if !seen {
				props[a.Name] = propOf(a.Name, a.Param)
				continue
			}
			if !slices.Equal(p.Enum, a.Enum) {
				p.Enum = nil // modes disagree: leave the enum to describe_capabilities
			}
		}
	}
	return objectSchema{Type: "object", Properties: props}
}

func propOf(name string, p Param) *propSchema {
	ps := &propSchema{Type: p.Type, Enum: p.Enum}
	if p.Items != "" {
		ps.Items = &propSchema{Type: p.Items}
	}
	if described[name] {
		ps.Description = p.Desc
	}
	return ps
}
