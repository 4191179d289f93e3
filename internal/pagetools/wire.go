package pagetools

import (
	"encoding/json"
	"strings"
)

// The WebMCP domain's events as Chromium 156 sends them. They are decoded
// here, leniently, rather than with cdproto's generated types: those
// follow a newer protocol (toolId, outputSchema) and the domain is
// experimental.

const (
	evToolsAdded    = "WebMCP.toolsAdded"
	evToolsRemoved  = "WebMCP.toolsRemoved"
	evToolInvoked   = "WebMCP.toolInvoked"
	evToolResponded = "WebMCP.toolResponded"
	evFrameNav      = "Page.frameNavigated"
	evFrameDetached = "Page.frameDetached"
)

type wireAnnotations struct {
	ReadOnly         bool `json:"readOnly"`
	UntrustedContent bool `json:"untrustedContent"`
	Consequential    bool `json:"consequential"`
	Debugging        bool `json:"debugging"`
	Autosubmit       bool `json:"autosubmit"`
}

type wireTool struct {
	Name          string           `json:"name"`
	Description   string           `json:"description"`
	InputSchema   json.RawMessage  `json:"inputSchema"`
	Annotations   *wireAnnotations `json:"annotations"`
	FrameID       string           `json:"frameId"`
	BackendNodeID int64            `json:"backendNodeId"`
}

type toolsAdded struct {
	Tools []wireTool `json:"tools"`
}

type toolsRemoved struct {
	Tools []struct {
		Name    string `json:"name"`
		FrameID string `json:"frameId"`
	} `json:"tools"`
}

type toolInvoked struct {
	ToolName     string `json:"toolName"`
	FrameID      string `json:"frameId"`
	InvocationID string `json:"invocationId"`
}

// responded is WebMCP.toolResponded: Status is Completed, Canceled or
// Error; Output is present only when Completed.
type responded struct {
	InvocationID string          `json:"invocationId"`
	Status       string          `json:"status"`
	Output       json.RawMessage `json:"output"`
	ErrorText    string          `json:"errorText"`
	Exception    *struct {
		Description string          `json:"description"`
		Value       json.RawMessage `json:"value"`
	} `json:"exception"`
}

// message is what the page's failure says: the exception's first line,
// or Chrome's error text.
func (r responded) message() string {
	if e := r.Exception; e != nil {
		if e.Description != "" {
			first, _, _ := strings.Cut(e.Description, "\n")
			return first
		}
		if len(e.Value) > 0 {
			return string(e.Value)
		}
	}
	return r.ErrorText
}

type frameNavigated struct {
	Frame struct {
		ID       string `json:"id"`
		ParentID string `json:"parentId"`
		URL      string `json:"url"`
	} `json:"frame"`
}

type frameDetached struct {
	FrameID string `json:"frameId"`
	Reason  string `json:"reason"`
}

// Tool is one tool a page registered, as Chrome and the page describe it.
// Every string in it is page text.
type Tool struct {
	Name        string
	Title       string
	Description string
	Frame       string          // the frame that registered it
	Schema      json.RawMessage // the page's input schema; empty when it gave none
	// SchemaTooBig: the page's schema was larger than Gasoline reads; the
	// tool is listed, never called (its arguments cannot be checked).
	SchemaTooBig  bool
	ReadOnly      bool // the page marked it readOnlyHint
	Untrusted     bool // untrustedContentHint: its output may carry others' content
	Consequential bool // consequentialHint
	// Declarative tools are forms with a toolname attribute; Chrome fills
	// them, and submits them itself when the form says toolautosubmit.
	Declarative bool
	Autosubmit  bool
}

func fromWire(w wireTool) *Tool {
	t := &Tool{Name: clip(w.Name, maxName), Description: clip(w.Description, maxDescription), Frame: w.FrameID,
		Declarative: w.BackendNodeID != 0}
	if len(w.InputSchema) > maxSchema {
		t.SchemaTooBig = true
	} else {
		t.Schema = schemaOf(w.InputSchema)
	}
	if a := w.Annotations; a != nil {
		t.ReadOnly, t.Untrusted, t.Consequential = a.ReadOnly, a.UntrustedContent, a.Consequential
		t.Autosubmit = a.Autosubmit
		t.Declarative = t.Declarative || a.Autosubmit
	}
	return t
}

// schemaOf keeps a schema that is a JSON object; some implementations
// hand it over as a JSON string, which is unwrapped.
func schemaOf(raw json.RawMessage) json.RawMessage {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		var inner string
		if json.Unmarshal(raw, &inner) != nil {
			return nil
		}
		s = strings.TrimSpace(inner)
	}
	if !strings.HasPrefix(s, "{") || !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
}
