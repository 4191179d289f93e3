package tools

// Guides for configure describe_capabilities: the whole surface, one tool,
// or one mode in full.

// ModeBrief is one mode in a listing.
type ModeBrief struct {
	What      string `json:"what"`
	Class     Class  `json:"class"`
	Available bool   `json:"available"`
	Needs     string `json:"needs,omitempty"`
	Summary   string `json:"summary"`
	Tier      int    `json:"tier,omitempty"` // set only for tier 2
}

// ToolBrief lists a tool's modes.
type ToolBrief struct {
	Tool    string      `json:"tool"`
	Summary string      `json:"summary"`
	Common  []string    `json:"common_args,omitempty"`
	Modes   []ModeBrief `json:"modes"`
}

// ModeGuide is the full parameter guide of one mode.
type ModeGuide struct {
	Tool      string         `json:"tool"`
	What      string         `json:"what"`
	Class     Class          `json:"class"`
	Approval  string         `json:"approval"`
	Available bool           `json:"available"`
	Tier      int            `json:"tier"`
	Summary   string         `json:"summary"`
	Args      []ArgGuide     `json:"args"`
	OneOf     [][]string     `json:"one_of,omitempty"`
	Example   map[string]any `json:"example"`
}

// ArgGuide is one argument in a ModeGuide.
type ArgGuide struct {
	Param
	Required bool `json:"required,omitempty"`
}

// Brief lists a tool's modes; available reports whether this build serves
// a mode.
func (t *Tool) Brief(available func(*Mode) bool) ToolBrief {
	b := ToolBrief{Tool: t.Name, Summary: t.Summary, Common: t.Common}
	for _, m := range t.Modes {
		mb := ModeBrief{What: m.Name, Class: m.Class, Available: available(m), Needs: m.requiredSketch(), Summary: m.Summary}
		if m.Tier > 1 {
			mb.Tier = m.Tier
		}
		b.Modes = append(b.Modes, mb)
	}
	return b
}

// Guide returns the full parameter guide of the mode.
func (m *Mode) Guide(available bool) ModeGuide {
	g := ModeGuide{
		Tool: m.Tool, What: m.Name, Class: m.Class, Available: available, Tier: m.Tier,
		Summary: m.Summary, OneOf: m.OneOf, Example: m.Example(), Approval: "none",
	}
	if m.Class.Gated() {
		g.Approval = "gated: without a valid approval_id the call becomes an approval request the user decides"
	}
	for _, a := range m.AllArgs() {
		g.Args = append(g.Args, ArgGuide{Param: a.Param, Required: a.Required})
	}
	return g
}

// Example returns the arguments of a minimal valid call of the mode.
func (m *Mode) Example() map[string]any {
	ex := map[string]any{"what": m.Name}
	for _, g := range m.OneOf {
		ex[g[0]] = catalogue()[g[0]].Example
		if g[0] == "x" {
			ex["y"] = catalogue()["y"].Example
		}
	}
	for _, a := range m.Args {
		if a.Required {
			ex[a.Name] = a.Example
			if len(a.Enum) > 0 {
				ex[a.Name] = a.Enum[0]
			}
		}
	}
	return ex
}
