package pagetools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Register serves observe page_tools and interact call_page_tool.
func (m *Manager) Register(s *mcpserver.Server) {
	s.Handle("observe", "page_tools", m.list)
	s.Handle("interact", "call_page_tool", m.call)
}

// listing is observe page_tools' answer.
type listing struct {
	TabID  int    `json:"tab_id"`
	URL    string `json:"url"`
	WebMCP string `json:"webmcp"` // on | off | unavailable
	// HowToEnable says how to turn WebMCP on, when it is off.
	HowToEnable string     `json:"how_to_enable,omitempty"`
	Note        string     `json:"note,omitempty"`
	Tools       []toolView `json:"tools"`
	// OtherOriginFrames counts frames of another origin than the page's:
	// their tools are never listed nor called.
	OtherOriginFrames int  `json:"other_origin_frames,omitempty"`
	More              bool `json:"more,omitempty"` // a frame had more tools than a listing reads
}

// toolView is one tool as the agent reads it. Every string but kind and
// approval is the page's.
type toolView struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	Frame       string `json:"frame,omitempty"` // set for a tool of a same-origin iframe: pass it to call_page_tool
	Kind        string `json:"kind"`            // script (registerTool) or form (a form with toolname)
	Autosubmit  bool   `json:"autosubmit,omitempty"`
	ReadOnly    bool   `json:"read_only"` // the page's readOnlyHint
	// UntrustedContent: the page says the tool's output may carry other
	// people's content (untrustedContentHint).
	UntrustedContent bool            `json:"untrusted_content,omitempty"`
	Consequential    bool            `json:"consequential,omitempty"`
	Approval         string          `json:"approval"` // what calling it takes, in Gasoline's words
	InputSchema      json.RawMessage `json:"input_schema,omitempty"`
	// LooksLikeGasoline: the page named or described the tool like one of
	// Gasoline's own tools, or wrote fence lines into it. It is the
	// page's all the same.
	LooksLikeGasoline bool `json:"looks_like_gasoline,omitempty"`
}

// maxDescription bounds a description in a listing (bytes).
const maxDescription = 8 << 10

func (m *Manager) list(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	v, err := m.look(ctx, s)
	if err != nil {
		return nil, err
	}
	out := listing{TabID: v.tab, URL: v.url, WebMCP: v.webmcp, Note: v.note, Tools: []toolView{}, OtherOriginFrames: v.otherFrames, More: v.more}
	if v.webmcp == stateOff {
		out.HowToEnable = "WebMCP is off for this page: " + howToEnable
	}
	for _, t := range v.tools {
		tv := toolView{Name: t.Name, Title: t.Title, Description: clip(t.Description, maxDescription), Kind: "script",
			Autosubmit: t.Autosubmit, ReadOnly: t.ReadOnly, UntrustedContent: t.Untrusted, Consequential: t.Consequential,
			Approval: approvalOf(t), InputSchema: t.Schema, LooksLikeGasoline: looksLikeGasoline(t)}
		if t.Declarative {
			tv.Kind = "form"
		}
		if t.Frame != v.mainFrame {
			tv.Frame = t.Frame
		}
		out.Tools = append(out.Tools, tv)
	}
	return mcpserver.PageResult(render(out), out, out.page())
}

// page is the listing's page text, the only part the instruction scanner
// reads: the page's address, and each tool's name, title, description and
// schema (its parameters' names, descriptions and values). The header,
// what calling a tool takes, the kinds and notes are Gasoline's words.
func (l listing) page() *untrusted.Page {
	p := new(untrusted.Page).Add(l.URL)
	for _, t := range l.Tools {
		p.Add(t.Name, t.Title, t.Description)
		var schema any
		if json.Unmarshal(t.InputSchema, &schema) == nil {
			p.AddValue(schema)
		}
	}
	return p
}

// approvalOf says what calling the tool takes. The words avoid what the
// instruction scanner looks for: they share the fenced text with the
// page's.
func approvalOf(t Tool) string {
	switch {
	case t.ReadOnly && !t.Autosubmit:
		return "runs at once, logged: the page marked it read-only"
	case t.Autosubmit:
		return "asks the user first, each time: it fills and submits the page's form (high risk)"
	case t.Declarative:
		return "asks the user first: it fills the page's form, which the user then submits"
	}
	return "asks the user first: it may change the page"
}

// render is the listing's text: a header, then per tool its name, title
// and kind, what calling it takes, the page's description and its
// arguments — Gasoline's words and the page's on lines of their own.
func render(l listing) string {
	var b strings.Builder
	fmt.Fprintf(&b, "page tools of tab %d (%s): %d; WebMCP %s\n", l.TabID, l.URL, len(l.Tools), l.WebMCP)
	if l.HowToEnable != "" {
		b.WriteString(l.HowToEnable + "\n")
	}
	if l.Note != "" {
		b.WriteString(l.Note + "\n")
	}
	for _, t := range l.Tools {
		fmt.Fprintf(&b, "- %s", t.Name)
		if t.Title != "" {
			fmt.Fprintf(&b, " %q", t.Title)
		}
		fmt.Fprintf(&b, " [%s]", t.Kind)
		if t.Frame != "" {
			fmt.Fprintf(&b, " [frame %s]", t.Frame)
		}
		fmt.Fprintf(&b, "\n  calling it: %s\n", t.Approval)
		fmt.Fprintf(&b, "  the page's description: %s\n", oneLine(clip(t.Description, 1000)))
		fmt.Fprintf(&b, "  arguments: %s\n", params(t.InputSchema))
	}
	if l.OtherOriginFrames > 0 {
		fmt.Fprintf(&b, "%d frame(s) of other origins: their tools are not listed\n", l.OtherOriginFrames)
	}
	return b.String()
}

// params summarises a schema's top-level properties: name (type,
// required): description.
func params(schema json.RawMessage) string {
	if len(schema) == 0 {
		return "any (the page gave no schema)"
	}
	req := map[string]bool{}
	for _, r := range gjson.GetBytes(schema, "required").Array() {
		req[r.String()] = true
	}
	var parts []string
	gjson.GetBytes(schema, "properties").ForEach(func(k, v gjson.Result) bool {
		p := k.String() + " (" + v.Get("type").String()
		if req[k.String()] {
			p += ", required"
		}
		p += ")"
		if e := v.Get("enum"); e.IsArray() {
			var vals []string
			for _, x := range e.Array() {
				vals = append(vals, x.String())
			}
			p += " one of " + strings.Join(vals, "|")
		}
		if d := v.Get("description").String(); d != "" {
			p += ": " + oneLine(clip(d, 200))
		}
		parts = append(parts, p)
		return len(parts) < 50
	})
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// oneLine folds line breaks, so a description reads as one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
