package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// SAFETY.md "Classification", spelled out: the table must agree.
var safetyClasses = map[string]Class{
	"interact.get_text": ReadOnly, "interact.get_value": ReadOnly, "interact.get_attribute": ReadOnly,
	"interact.query": ReadOnly, "interact.wait_for": ReadOnly, "interact.wait_for_stable": ReadOnly, "interact.explore_page": ReadOnly,
	"interact.hover": ReadOnly, "interact.focus": ReadOnly, "interact.scroll_to": ReadOnly, "interact.switch_tab": ReadOnly,

	"interact.navigate": Mutating, "interact.refresh": Mutating, "interact.back": Mutating, "interact.forward": Mutating,
	"interact.click": Mutating, "interact.type": Mutating, "interact.fill_form": Mutating, "interact.select": Mutating,
	"interact.check": Mutating, "interact.key_press": Mutating, "interact.drag": Mutating, "interact.new_tab": Mutating,
	"interact.close_tab": Mutating, "interact.handle_dialog": Mutating, "interact.batch": Mutating,
	"configure.policy": Mutating, "configure.redaction": Mutating, "configure.clear": Mutating,

	"interact.execute_js": Sensitive, "interact.upload": Sensitive,

	// Not named in SAFETY.md; decided here (fail closed where in doubt):
	// daemon introspection is read-only; anything that changes what is
	// captured, reported or stored is mutating.
	"configure.health": ReadOnly, "configure.doctor": ReadOnly, "configure.describe_capabilities": ReadOnly,
	"configure.audit_log": ReadOnly, "configure.load": ReadOnly,
	"configure.agent_watch": Mutating, "configure.noise_rule": Mutating, "configure.store": Mutating,
	"configure.recording_start": Mutating, "configure.recording_stop": Mutating,
	// A page's own WebMCP tool: mutating in the table; the gate lets a
	// tool the page marked readOnlyHint run without asking (logged).
	"interact.call_page_tool": Mutating,

	// Issue 32 (docs/DEVTOOLS.md): emulation and routes change how the
	// tab's page behaves; a trace reloads the page, so analyze is no
	// longer read-only as a whole.
	"interact.emulate": Mutating, "interact.route": Mutating, "interact.unroute": Mutating,
	"analyze.performance_trace": Mutating,

	// A plan approved once (issue 30): always asked (policy.AlwaysAsk).
	"interact.plan": Mutating,
}

// TOOLS.md "Modes": every mode named there, per tool, and (after the
// bar) the modes TOOLS.md lacks, each in docs/DESIGN-DELTAS.md.
var toolsMD = map[string]string{
	"observe":   "snapshot page tabs screenshot errors logs network_waterfall network_bodies websocket_events actions timeline error_bundles vitals storage command_result pending_commands approvals | page_tools downloads routes",
	"interact":  "navigate refresh back forward new_tab switch_tab close_tab click type fill_form select check hover focus scroll_to key_press drag upload execute_js handle_dialog wait_for wait_for_stable get_text get_value get_attribute query explore_page batch | call_page_tool emulate route unroute plan",
	"analyze":   "page_summary dom accessibility performance security_audit forms data_table error_clusters page_issues link_health visual_diff | performance_trace",
	"generate":  "reproduction test har csp sarif pr_summary | pdf",
	"configure": "health doctor describe_capabilities clear policy redaction audit_log agent_watch noise_rule store load recording_start recording_stop",
}

func TestEveryModeClassified(t *testing.T) {
	for _, tl := range All() {
		for _, m := range tl.Modes {
			c, err := Classify(tl.Name, m.Name)
			if err != nil {
				t.Fatalf("Classify(%s): %v", m.Key(), err)
			}
			want, ok := safetyClasses[m.Key()]
			if !ok {
				// observe, analyze and generate are read-only by rule.
				want = ReadOnly
				if tl.Name == "interact" || tl.Name == "configure" {
					t.Errorf("%s: no expected class in the test; decide it", m.Key())
				}
			}
			if c != want {
				t.Errorf("%s: class %s, want %s", m.Key(), c, want)
			}
		}
	}
}

func TestTableMatchesToolsMD(t *testing.T) {
	var names []string
	for _, tl := range All() {
		names = append(names, tl.Name)
		got := tl.ModeNames()
		want := strings.Fields(strings.ReplaceAll(toolsMD[tl.Name], "|", " "))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s modes:\n got %v\nwant %v", tl.Name, got, want)
		}
	}
	if want := []string{"observe", "interact", "analyze", "generate", "configure"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestUnclassifiedModeRefused(t *testing.T) {
	idx := mustBuild([]toolSpec{{name: "x", modes: []modeSpec{{name: "y", class: "", tier: 1, text: own}}}})
	if _, err := idx.classify("x", "y"); err == nil {
		t.Error("a mode with an empty class was accepted")
	}
	if _, err := idx.classify("x", "z"); err == nil {
		t.Error("a mode missing from the table was accepted")
	}
	if _, err := Classify("observe", "nope"); err == nil {
		t.Error("Classify accepted an unknown mode")
	}
}

func TestTableHouseRules(t *testing.T) {
	used := map[string]bool{}
	for _, n := range universal {
		used[n] = true
	}
	used["approval_id"] = true
	for _, tl := range All() {
		for _, n := range tl.Common {
			used[n] = true
		}
		for tier := 1; tier <= 2; tier++ {
			var names []string
			for _, m := range tl.Modes {
				if m.Tier == tier {
					names = append(names, m.Name)
				}
			}
			if !slices.IsSorted(names) {
				t.Errorf("%s tier %d modes not sorted: %v", tl.Name, tier, names)
			}
		}
		for _, m := range tl.Modes {
			if m.Summary == "" || m.Tier < 1 || m.Tier > 2 {
				t.Errorf("%s: summary %q tier %d", m.Key(), m.Summary, m.Tier)
			}
			for _, a := range m.Args {
				used[a.Name] = true
			}
			if _, e := Parse(tl.Name, mustJSON(t, m.Example())); e != nil {
				t.Errorf("%s: its own example is invalid: %v", m.Key(), e)
			}
		}
	}
	for n := range catalogue() {
		if !used[n] {
			t.Errorf("catalogue entry %q is used by no mode", n)
		}
	}
}

func TestHints(t *testing.T) {
	tests := []struct {
		tool                                     string
		readOnly, destructive, idempotent, world bool
	}{
		{"observe", true, false, true, true},
		{"interact", false, true, false, true},
		{"analyze", false, true, false, true}, // performance_trace reloads the page
		{"generate", true, false, true, false},
		{"configure", false, true, false, false},
	}
	for _, tt := range tests {
		tl, _ := Get(tt.tool)
		got := tl.Hints()
		want := Hints{ReadOnly: tt.readOnly, Destructive: tt.destructive, Idempotent: tt.idempotent, OpenWorld: tt.world}
		if got != want {
			t.Errorf("%s hints = %+v, want %+v", tt.tool, got, want)
		}
	}
}

// TestSchemaBudget keeps the tools/list payload (descriptions and schemas)
// well under the 12 KiB budget; the e2e test measures the real answer.
func TestSchemaBudget(t *testing.T) {
	total := 0
	for _, tl := range All() {
		total += len(tl.Description()) + len(tl.InputSchema())
		var v map[string]any
		if err := json.Unmarshal(tl.InputSchema(), &v); err != nil || v["type"] != "object" {
			t.Errorf("%s schema is not an object schema: %v", tl.Name, err)
		}
	}
	// 10 KiB until issue 32's eight modes (emulation, routes, traces,
	// downloads, PDF) took 10,277 bytes; tools/list itself, measured by
	// BenchmarkToolsListHTTP, stays under its 12 KiB.
	if total > 10752 {
		t.Errorf("descriptions+schemas = %d bytes, budget 10.5 KiB", total)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestReadOpsReadOnly(t *testing.T) {
	n := 0
	for _, tl := range All() {
		for _, m := range tl.Modes {
			if m.ReadOp == "" {
				continue
			}
			n++
			c, e := Parse(tl.Name, []byte(`{"what":"`+m.Name+`","op":"`+m.ReadOp+`"}`))
			if e != nil {
				t.Errorf("%s op %s: %v", m.Key(), m.ReadOp, e)
				continue
			}
			if !c.ReadsOnly() {
				t.Errorf("%s op %s: not read-only", m.Key(), m.ReadOp)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d modes with a read op, want 4 (policy, redaction, agent_watch, noise_rule)", n)
	}
	c, _ := Parse("configure", []byte(`{"what":"policy","op":"set","rules":{"rules":[]}}`))
	if c.ReadsOnly() {
		t.Error("configure policy set reads only")
	}
}
