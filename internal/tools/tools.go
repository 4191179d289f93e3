// Package tools is Gasoline's MCP tool surface as data: the five tools
// (observe, interact, analyze, generate, configure), every mode of each with
// its classification (read-only, mutating, sensitive), a short summary and
// its arguments, plus validation of a call against that table, the compact
// input schemas for tools/list, the MCP annotations derived from the
// classification, and the structured errors agents receive.
//
// The package knows nothing about transports or the MCP SDK; the dispatcher
// in internal/mcpserver uses it.
package tools

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Class is a mode's safety classification (SAFETY.md, "Classification").
type Class string

// The classes. A mode whose class is not one of these is refused.
const (
	ReadOnly  Class = "read_only"
	Mutating  Class = "mutating"
	Sensitive Class = "sensitive"
)

// Gated reports whether calls of this class need the user's approval by
// default.
func (c Class) Gated() bool { return c == Mutating || c == Sensitive }

func (c Class) valid() bool { return c == ReadOnly || c == Mutating || c == Sensitive }

// Tool is one MCP tool.
type Tool struct {
	Name  string
	Title string
	// Summary is the first sentence of the tool's description.
	Summary string
	// OpenWorld says the tool reaches pages on the web (MCP openWorldHint).
	OpenWorld bool
	// Common lists the arguments every mode of the tool accepts (besides
	// what, action, timeout_ms and background).
	Common []string
	Modes  []*Mode
}

// Mode is one `what` of a tool.
type Mode struct {
	Tool    string
	Name    string
	Class   Class
	Tier    int    // 1: the product; 2: follows once tier 1 is solid
	Summary string // one line, for describe_capabilities
	// Args lists the mode's own arguments in order (see parseArgs for the
	// notation): required ones end in "!", alternatives of which one is
	// required are joined by "|", and a per-mode enum is "name:a,b,c".
	Args []Arg
	// OneOf lists groups of arguments of which at least one must be given.
	OneOf [][]string
}

// Key returns "tool.mode", the name used in logs, approvals and policy.
func (m *Mode) Key() string { return m.Tool + "." + m.Name }

// Arg is one argument a mode takes.
type Arg struct {
	Param
	Required bool
}

// registry is built from the table on first use, not at package init:
// gasoline-host's modes that never serve MCP (the native host, the
// installers) never build it. A bad table panics on first use; the
// package's tests build it.
var registry = sync.OnceValue(func() index { return mustBuild(table) })

// All returns the tools in tools/list order.
func All() []*Tool { return registry().tools }

// Get returns the named tool.
func Get(name string) (*Tool, bool) {
	for _, t := range registry().tools {
		if t.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Lookup returns a tool's mode.
func Lookup(tool, what string) (*Mode, bool) {
	m, ok := registry().modes[tool+"."+what]
	return m, ok
}

// Mode returns the tool's mode named what, or nil.
func (t *Tool) Mode(what string) *Mode {
	for _, m := range t.Modes {
		if m.Name == what {
			return m
		}
	}
	return nil
}

// ModeNames returns the tool's mode names in table order.
func (t *Tool) ModeNames() []string {
	names := make([]string, len(t.Modes))
	for i, m := range t.Modes {
		names[i] = m.Name
	}
	return names
}

// Classify returns the class of tool.what. A mode missing from the table, or
// one whose class is not a known one, is an error: the caller must refuse
// the call (fail closed).
func Classify(tool, what string) (Class, error) { return registry().classify(tool, what) }

func (idx index) classify(tool, what string) (Class, error) {
	m, ok := idx.modes[tool+"."+what]
	if !ok {
		return "", fmt.Errorf("tools: %s.%s is not in the classification table", tool, what)
	}
	if !m.Class.valid() {
		return "", fmt.Errorf("tools: %s.%s has no valid classification (%q)", tool, what, m.Class)
	}
	return m.Class, nil
}

type index struct {
	tools []*Tool
	modes map[string]*Mode
}

// mustBuild turns the declarative table into tools and modes, panicking on
// a malformed table (a programming error caught by every test run).
func mustBuild(specs []toolSpec) index {
	idx := index{modes: map[string]*Mode{}}
	for _, ts := range specs {
		t := &Tool{Name: ts.name, Title: ts.title, Summary: ts.summary, OpenWorld: ts.openWorld, Common: strings.Fields(ts.common)}
		for _, ms := range ts.modes {
			m := &Mode{Tool: t.Name, Name: ms.name, Class: ms.class, Tier: ms.tier, Summary: ms.summary}
			var err error
			if m.Args, m.OneOf, err = parseArgs(ms.args); err != nil {
				panic(fmt.Sprintf("tools: %s.%s: %v", t.Name, m.Name, err))
			}
			if _, dup := idx.modes[m.Key()]; dup {
				panic("tools: duplicate mode " + m.Key())
			}
			idx.modes[m.Key()] = m
			t.Modes = append(t.Modes, m)
		}
		idx.tools = append(idx.tools, t)
	}
	return idx
}

// parseArgs reads the compact argument notation of the table:
//
//	"url! wait_until ref|selector|x y op:get,set"
//
// "name!" is required; "a|b|c" are alternatives of which one is required
// (each also accepted alone); "name:v1,v2" narrows the catalogue entry to
// an enum for this mode.
func parseArgs(spec string) ([]Arg, [][]string, error) {
	var args []Arg
	var oneOf [][]string
	seen := map[string]bool{}
	add := func(name string, required bool, enum []string) error {
		p, ok := catalogue()[name]
		if !ok {
			return fmt.Errorf("argument %q is not in the catalogue", name)
		}
		if seen[name] {
			return fmt.Errorf("argument %q listed twice", name)
		}
		seen[name] = true
		p.Name = name
		if enum != nil {
			p.Enum = enum
		}
		args = append(args, Arg{Param: p, Required: required})
		return nil
	}
	for _, tok := range strings.Fields(spec) {
		switch {
		case strings.Contains(tok, "|"):
			group := strings.Split(tok, "|")
			for _, name := range group {
				if err := add(name, false, nil); err != nil {
					return nil, nil, err
				}
			}
			oneOf = append(oneOf, group)
		case strings.Contains(tok, ":"):
			name, values, _ := strings.Cut(tok, ":")
			required := strings.HasSuffix(name, "!")
			if err := add(strings.TrimSuffix(name, "!"), required, strings.Split(values, ",")); err != nil {
				return nil, nil, err
			}
		default:
			required := strings.HasSuffix(tok, "!")
			if err := add(strings.TrimSuffix(tok, "!"), required, nil); err != nil {
				return nil, nil, err
			}
		}
	}
	return args, oneOf, nil
}

// Arg returns the mode's argument called name, looking at the mode's own
// arguments, then the tool's common ones, then the universal ones.
func (m *Mode) Arg(name string) (Arg, bool) {
	for _, a := range m.Args {
		if a.Name == name {
			return a, true
		}
	}
	t, _ := Get(m.Tool)
	if slices.Contains(t.Common, name) || slices.Contains(universal, name) || (name == "approval_id" && m.Class.Gated()) {
		p := catalogue()[name]
		p.Name = name
		return Arg{Param: p}, true
	}
	return Arg{}, false
}

// AllArgs returns every argument the mode accepts: its own, the tool's
// common ones, approval_id when gated, and the universal ones.
func (m *Mode) AllArgs() []Arg {
	args := slices.Clone(m.Args)
	t, _ := Get(m.Tool)
	names := slices.Clone(t.Common)
	if m.Class.Gated() {
		names = append(names, "approval_id")
	}
	names = append(names, universal...)
	for _, n := range names {
		if a, ok := m.Arg(n); ok && !slices.ContainsFunc(args, func(x Arg) bool { return x.Name == n }) {
			args = append(args, a)
		}
	}
	return args
}

// universal arguments are accepted by every mode of every tool.
var universal = []string{"timeout_ms", "background"}
