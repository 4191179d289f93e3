package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// SARIF 2.1.0 (OASIS), the subset generate sarif writes: one run, the
// axe rules that failed as the driver's rules, one result per failing
// element, located by the page's URL and the element's selector.

// SchemaURI is the $schema of the documents generate sarif writes.
const SchemaURI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Log is a SARIF log.
type Log struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []Run  `json:"runs"`
}

// Run is one run of a tool.
type Run struct {
	Tool        Tool           `json:"tool"`
	Invocations []Invocation   `json:"invocations"`
	Artifacts   []Artifact     `json:"artifacts,omitempty"`
	Results     []Result       `json:"results"`
	Properties  map[string]any `json:"properties,omitempty"`
}

// Tool is the run's tool: Gasoline, with axe-core as its extension.
type Tool struct {
	Driver     Component   `json:"driver"`
	Extensions []Component `json:"extensions,omitempty"`
}

// Component is a tool component.
type Component struct {
	Name           string `json:"name"`
	Version        string `json:"version,omitempty"`
	InformationURI string `json:"informationUri,omitempty"`
	Rules          []Rule `json:"rules,omitempty"`
}

// Rule is a reporting descriptor.
type Rule struct {
	ID                   string         `json:"id"`
	ShortDescription     Message        `json:"shortDescription"`
	FullDescription      Message        `json:"fullDescription"`
	HelpURI              string         `json:"helpUri,omitempty"`
	DefaultConfiguration Configuration  `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

// Configuration is a reporting configuration.
type Configuration struct {
	Level string `json:"level"`
}

// Message is a SARIF message.
type Message struct {
	Text string `json:"text"`
}

// Invocation is how the run went.
type Invocation struct {
	ExecutionSuccessful bool   `json:"executionSuccessful"`
	EndTimeUTC          string `json:"endTimeUtc"`
}

// Artifact is the page analyzed.
type Artifact struct {
	Location ArtifactLocation `json:"location"`
}

// ArtifactLocation names an artifact by URI.
type ArtifactLocation struct {
	URI   string `json:"uri"`
	Index *int   `json:"index,omitempty"`
}

// Result is one failing element.
type Result struct {
	RuleID     string         `json:"ruleId"`
	RuleIndex  int            `json:"ruleIndex"`
	Level      string         `json:"level"`
	Message    Message        `json:"message"`
	Locations  []Location     `json:"locations"`
	Properties map[string]any `json:"properties,omitempty"`
}

// Location is where a result is: the page, and the element in it.
type Location struct {
	PhysicalLocation PhysicalLocation  `json:"physicalLocation"`
	LogicalLocations []LogicalLocation `json:"logicalLocations,omitempty"`
}

// PhysicalLocation is the page.
type PhysicalLocation struct {
	ArtifactLocation ArtifactLocation `json:"artifactLocation"`
}

// LogicalLocation is the element, by selector.
type LogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifLevel maps axe's impact to a SARIF level.
func sarifLevel(impact string) string {
	switch impact {
	case "critical", "serious":
		return "error"
	case "moderate":
		return "warning"
	}
	return "note"
}

// ToSARIF turns an accessibility report into a SARIF log.
func ToSARIF(r *A11yReport, at time.Time) Log {
	zero := 0
	run := Run{
		Tool: Tool{
			Driver:     Component{Name: "Gasoline", Version: version.Version, InformationURI: "https://github.com/gasoline-mcp/gasoline"},
			Extensions: []Component{{Name: "axe-core", Version: engineVersion(r.Engine), InformationURI: "https://github.com/dequelabs/axe-core"}},
		},
		Invocations: []Invocation{{ExecutionSuccessful: true, EndTimeUTC: at.UTC().Format(time.RFC3339)}},
		Results:     []Result{},
		Properties:  map[string]any{"wcagLevel": r.Level, "axeTags": r.Tags, "needsReview": r.NeedsReview},
	}
	if r.URL != "" {
		run.Artifacts = []Artifact{{Location: ArtifactLocation{URI: r.URL}}}
	}
	for i, v := range r.Violations {
		if v.WCAG == nil {
			v.WCAG = []string{}
		}
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, Rule{
			ID: v.ID, ShortDescription: Message{v.Help}, FullDescription: Message{v.Description}, HelpURI: v.HelpURL,
			DefaultConfiguration: Configuration{Level: sarifLevel(v.Impact)},
			Properties:           map[string]any{"tags": v.WCAG, "impact": v.Impact},
		})
		for _, n := range v.Nodes {
			loc := Location{PhysicalLocation: PhysicalLocation{ArtifactLocation: ArtifactLocation{URI: r.URL}},
				LogicalLocations: []LogicalLocation{{FullyQualifiedName: n.Selector, Kind: "element"}}}
			if r.URL != "" {
				loc.PhysicalLocation.ArtifactLocation.Index = &zero
			}
			props := map[string]any{"impact": v.Impact, "html": n.HTML}
			if n.Ref != "" {
				props["ref"] = string(n.Ref)
			}
			run.Results = append(run.Results, Result{RuleID: v.ID, RuleIndex: i, Level: sarifLevel(v.Impact),
				Message: Message{v.Help + ": " + n.Summary}, Locations: []Location{loc}, Properties: props})
		}
	}
	return Log{Schema: SchemaURI, Version: "2.1.0", Runs: []Run{run}}
}

func engineVersion(engine string) string {
	var v string
	fmt.Sscanf(engine, "axe-core %s", &v)
	return v
}

// SARIFAnswer is generate sarif's structured answer; the document itself
// is the text content, or the file at Path.
type SARIFAnswer struct {
	TabID   int    `json:"tab_id"`
	Level   string `json:"wcag_level"`
	Rules   int    `json:"rules"`
	Results int    `json:"results"`
	Path    string `json:"path,omitempty"`
	Bytes   int    `json:"bytes"`
}

// maxSARIFNodes bounds the elements of one rule a SARIF log lists; a log
// over maxInlineSARIF goes to a file even without to_file.
const (
	maxSARIFNodes  = 500
	maxInlineSARIF = 1 << 20
)

func (a *Analyzer) sarif(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	r, err := a.audit(ctx, p, a11yOpts{Level: levelOf(c), MaxNodes: maxSARIFNodes})
	p.release()
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false) // the rules' texts name <html>, <img> …
	enc.SetIndent("", " ")
	if err := enc.Encode(ToSARIF(r, time.Now())); err != nil {
		return nil, err
	}
	body, err := a.cfg.Egress.Text(c.Session.ID(), raw.String())
	if err != nil {
		return nil, &tools.Error{Code: "redaction_failed", Message: "the SARIF log was blocked by redaction (" + err.Error() + "); nothing was written; fix redaction.json and retry"}
	}
	ans := SARIFAnswer{TabID: r.TabID, Level: r.Level, Rules: len(r.Violations), Bytes: len(body)}
	for _, v := range r.Violations {
		ans.Results += len(v.Nodes)
	}
	if !c.Args.ToFile && len(body) <= maxInlineSARIF {
		return pageResult(body, ans, r.page())
	}
	if ans.Path, err = export.Save(a.cfg.Dir, "sarif", ".sarif", []byte(body)); err != nil {
		return nil, err
	}
	return pageResult(fmt.Sprintf("SARIF 2.1.0 log of %d result(s) for %d WCAG %s rule(s) written to %s (%d bytes)", ans.Results, ans.Rules, ans.Level, ans.Path, ans.Bytes), ans, nil) // no page text: the log is in the file
}
