package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func report() *A11yReport {
	return &A11yReport{URL: "http://127.0.0.1:8080/p?q=1", Level: "AA", Engine: "axe-core 4.14.1", Tags: []string{"wcag2a", "wcag2aa"},
		Violations: []Violation{
			{ID: "image-alt", Impact: "critical", Help: "Images must have alternative text", Description: "d", HelpURL: "https://x.test/image-alt",
				WCAG: []string{"wcag2a", "wcag111"}, Count: 2, Nodes: []A11yNode{{Ref: "e3", Selector: "#logo", HTML: "<img id=logo>", Summary: "add alt"}, {Selector: "img:nth-of-type(2)"}}},
			{ID: "region", Impact: "moderate", Help: "All content should be in landmarks", Count: 1, Nodes: []A11yNode{{Selector: "p"}}},
			{ID: "meta-x", Impact: "minor", Help: "h", Count: 1, Nodes: []A11yNode{{Selector: "meta"}}},
		}}
}

// ToSARIF writes one rule per failing axe rule and one result per
// element, valid against the official SARIF 2.1.0 schema.
func TestSARIFIsValid(t *testing.T) {
	raw, err := json.Marshal(ToSARIF(report(), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
	require.NoError(t, err)
	f, err := os.Open("../../testdata/sarif/sarif-schema-2.1.0.json")
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource("sarif.json", doc))
	schema, err := c.Compile("sarif.json")
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	require.NoError(t, schema.Validate(inst))

	var log Log
	require.NoError(t, json.Unmarshal(raw, &log))
	run := log.Runs[0]
	assert.Len(t, run.Tool.Driver.Rules, 3)
	require.Len(t, run.Results, 4)
	assert.Equal(t, []string{"error", "error", "warning", "note"}, []string{run.Results[0].Level, run.Results[1].Level, run.Results[2].Level, run.Results[3].Level})
	assert.Equal(t, 1, run.Results[2].RuleIndex)
	assert.Equal(t, "e3", run.Results[0].Properties["ref"])
	assert.Equal(t, "#logo", run.Results[0].Locations[0].LogicalLocations[0].FullyQualifiedName)
	assert.Equal(t, "4.14.1", run.Tool.Extensions[0].Version)
	assert.Equal(t, "2026-01-02T03:04:05Z", run.Invocations[0].EndTimeUTC)
}

// limit cuts element lists worst rule first, every rule keeping one.
func TestListNodes(t *testing.T) {
	r := report()
	assert.Equal(t, 3, listNodes(r.Violations, 1))
	assert.Len(t, r.Violations[0].Nodes, 1)
	r = report()
	assert.Equal(t, 4, listNodes(r.Violations, 100))
}
