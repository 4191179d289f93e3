package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// violation is one failing rule as a test compares it: its impact, how
// many elements fail, and the first one's selector and ref.
type violation struct {
	Impact, Selector, Ref string
	Count                 int
}

func violations(t testing.TB, a answer) map[string]violation {
	t.Helper()
	out := map[string]violation{}
	for _, v := range list(a, "violations") {
		nodes := asSlice(v["nodes"])
		require.NotEmpty(t, nodes, "rule %v lists no element", v["id"])
		n := nodes[0].(map[string]any)
		ref, _ := n["ref"].(string)
		out[v["id"].(string)] = violation{Impact: v["impact"].(string), Count: int(v["count"].(float64)), Selector: n["selector"].(string), Ref: ref}
	}
	return out
}

// TestE2EAnalyzeAccessibility: axe-core, injected by the extension into
// Gasoline's isolated world, finds exactly the defects planted in
// a11y.html at each WCAG level (the page's fake window.axe and its broken
// Array.prototype.filter change nothing), names failing elements by the
// latest snapshot's refs, and generate sarif writes the same findings as
// SARIF 2.1.0 that the official schema accepts.
func TestE2EAnalyzeAccessibility(t *testing.T) {
	x := startAnalyze(t, "analyze-a11y", ChainOptions{})
	x.page("/pages/analyze/a11y.html")

	// No snapshot yet: selectors only.
	base := map[string]violation{
		"button-name":   {Impact: "critical", Count: 1, Selector: "#icon"},
		"image-alt":     {Impact: "critical", Count: 1, Selector: "#logo"},
		"label":         {Impact: "critical", Count: 2, Selector: "#email"},
		"html-has-lang": {Impact: "serious", Count: 1, Selector: "html"},
		"link-name":     {Impact: "serious", Count: 1, Selector: "#empty-link"},
	}
	a := x.analyze("accessibility", map[string]any{"wcag_level": "A"})
	assert.Equal(t, base, violations(t, a))
	assert.Equal(t, "axe-core 4.14.1", a.Data["engine"])
	assert.Equal(t, "fake", js[string](x.client, "window.axe.version"), "the page's own window.axe is untouched")
	raw, err := json.Marshal(a.Raw.StructuredContent)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `id=\"pin\" type=\"password\" value=\"••••\"`, "the password field's markup, its value masked")
	assert.NotContains(t, string(raw), "hunter2-planted")

	// After a snapshot, the elements it named carry their refs.
	snap := x.snap(nil)
	refs := map[string]string{"button-name": refOf(t, snap, "button ["), "label": refOf(t, snap, "textbox ["), "link-name": refOf(t, snap, "link [")}
	withRefs := func(m map[string]violation) map[string]violation {
		out := map[string]violation{}
		for id, v := range m {
			v.Ref = refs[id]
			out[id] = v
		}
		return out
	}
	aa := withRefs(base)
	aa["color-contrast"] = violation{Impact: "serious", Count: 1, Selector: ".faint"}
	aaa := withRefs(aa)
	aaa["color-contrast-enhanced"] = violation{Impact: "serious", Count: 1, Selector: ".grey"}
	for _, tc := range []struct {
		level string
		want  map[string]violation
	}{{"A", withRefs(base)}, {"AA", aa}, {"AAA", aaa}} {
		a := x.analyze("accessibility", map[string]any{"wcag_level": tc.level})
		assert.Equal(t, tc.want, violations(t, a), "level %s:\n%s", tc.level, a.Text)
		assert.Equal(t, tc.level, a.Data["wcag_level"])
		// Worst impact first, then the most elements.
		impact := map[string]int{"critical": 4, "serious": 3, "moderate": 2, "minor": 1}
		vs := list(a, "violations")
		assert.Equal(t, "label", vs[0]["id"], "critical with two elements first")
		for i := 1; i < len(vs); i++ {
			assert.GreaterOrEqual(t, impact[vs[i-1]["impact"].(string)], impact[vs[i]["impact"].(string)])
		}
	}
	// AA is the default; the text names refs.
	a = x.analyze("accessibility", nil)
	assert.Equal(t, aa, violations(t, a))
	assert.Contains(t, a.Text, "#icon [ref="+refs["button-name"]+"]")

	// A selector scopes the audit.
	a = x.analyze("accessibility", map[string]any{"selector": "#scope"})
	assert.Equal(t, map[string]violation{"button-name": aa["button-name"]}, violations(t, a))
	x.analyzeFails("element_not_found", "accessibility", map[string]any{"selector": "#nothing"})
	x.analyzeFails("invalid_argument", "accessibility", map[string]any{"selector": "#["})
	x.analyzeFails("invalid_argument", "accessibility", map[string]any{"wcag_level": "B"})

	sarifChecks(t, x, aa)

	// After a navigation the old refs are stale: none is offered.
	x.act("refresh", nil)
	a = x.analyze("accessibility", nil)
	for id, v := range violations(t, a) {
		assert.Empty(t, v.Ref, "rule %s names ref %s after the page reloaded", id, v.Ref)
	}
}

// sarifChecks: generate sarif, inline and to a file, is valid SARIF 2.1.0
// (the official schema, testdata/sarif) holding the AA findings.
func sarifChecks(t *testing.T, x *an, want map[string]violation) {
	schema := sarifSchema(t)
	a := x.ok("generate", map[string]any{"what": "sarif"})
	doc := validSARIF(t, schema, []byte(a.Page))
	assert.NotContains(t, a.Text, "hunter2-planted")
	// The validator does reject what the schema forbids.
	bad, err := jsonschema.UnmarshalJSON(strings.NewReader(strings.Replace(a.Page, `"level": "error"`, `"level": "fatal"`, 1)))
	require.NoError(t, err)
	require.Error(t, schema.Validate(bad), "a result level outside the schema's enum must fail validation")
	elements := 0
	for _, v := range want {
		elements += v.Count
	}
	assert.EqualValues(t, elements, a.Data["results"])
	assert.EqualValues(t, len(want), a.Data["rules"])
	run := doc["runs"].([]any)[0].(map[string]any)
	results := run["results"].([]any)
	got := map[string]violation{}
	for _, r := range results {
		m := r.(map[string]any)
		loc := m["locations"].([]any)[0].(map[string]any)
		sel := loc["logicalLocations"].([]any)[0].(map[string]any)["fullyQualifiedName"].(string)
		uri := loc["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)["uri"].(string)
		assert.Equal(t, x.site.URL+"/pages/analyze/a11y.html", uri)
		props := m["properties"].(map[string]any)
		ref, _ := props["ref"].(string)
		id := m["ruleId"].(string)
		if v, seen := got[id]; seen { // the rule's first element is compared; the others counted
			v.Count++
			got[id] = v
			continue
		}
		got[id] = violation{Impact: props["impact"].(string), Count: 1, Selector: sel, Ref: ref}
		level := map[string]string{"critical": "error", "serious": "error"}[props["impact"].(string)]
		assert.Equal(t, level, m["level"])
	}
	assert.Equal(t, want, got)
	assert.Equal(t, "axe-core", run["tool"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["name"])

	f := x.ok("generate", map[string]any{"what": "sarif", "to_file": true, "wcag_level": "AAA"})
	path := f.Data["path"].(string)
	require.True(t, strings.HasPrefix(path, filepath.Join(x.Home, "exports")+string(filepath.Separator)), "written to %s", path)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	doc = validSARIF(t, schema, raw)
	assert.Len(t, doc["runs"].([]any)[0].(map[string]any)["results"], elements+1, "AAA adds color-contrast-enhanced")
}

func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(RepoRoot(), "testdata", "sarif", "sarif-schema-2.1.0.json")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource("sarif-schema-2.1.0.json", doc))
	s, err := c.Compile("sarif-schema-2.1.0.json")
	require.NoError(t, err)
	return s
}

// validSARIF validates raw against the schema and decodes it.
func validSARIF(t *testing.T, schema *jsonschema.Schema, raw []byte) map[string]any {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	require.NoError(t, err)
	require.NoError(t, schema.Validate(inst), "SARIF log is not valid against the 2.1.0 schema:\n%.2000s", raw)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.Equal(t, "2.1.0", doc["version"])
	return doc
}
