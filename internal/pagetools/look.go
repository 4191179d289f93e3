package pagetools

import (
	"context"
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// WebMCP states a listing reports.
const (
	stateOn          = "on"
	stateOff         = "off"
	stateUnavailable = "unavailable"
)

// view is what one look at a tab found: its page, whether the page has
// WebMCP, and its tools (the main frame's and its same-origin frames').
type view struct {
	tab         int
	url         string
	mainFrame   string
	webmcp      string
	note        string // why calls cannot run, when Chrome's domain is missing
	tools       []Tool
	gen         uint64 // the tools' generation before they were read
	otherFrames int    // frames of other origins, whose tools are never listed
	more        bool
}

// look reads the tab's tools now: what Chrome reported since WebMCP was
// enabled, joined with what each same-origin frame's document.modelContext
// says in Gasoline's isolated world.
func (m *Manager) look(ctx context.Context, s *cdp.Session) (view, error) {
	tab := s.TabID()
	gen := m.generation(tab)
	fs, others, err := frames(ctx, s)
	if err != nil {
		return view{}, err
	}
	sw := make(map[string]swept, len(fs))
	var mainErr error
	for _, f := range fs {
		x, err := sweep(ctx, s, f)
		if err != nil {
			if ctx.Err() != nil {
				return view{}, err
			}
			if f.main {
				mainErr = err
			}
			continue // a frame that navigated meanwhile: what Chrome reported stands
		}
		sw[f.id] = x
	}
	reg, st, detail := m.registered(tab)
	v := view{tab: tab, url: fs[0].url, mainFrame: fs[0].id, otherFrames: others, gen: gen}
	var otherOrigin int
	v.tools, otherOrigin = merge(reg, fs, sw)
	v.otherFrames += otherOrigin
	for _, x := range sw {
		v.more = v.more || x.More
	}
	main, read := sw[fs[0].id]
	switch {
	case read && !main.WebMCP && len(v.tools) == 0:
		v.webmcp = stateOff
	case st == unavailable:
		v.webmcp, v.note = stateUnavailable, "Chrome's WebMCP domain could not be enabled in this tab ("+clip(detail, 200)+"); Gasoline cannot call the page's tools here"
	case read || len(v.tools) > 0:
		v.webmcp = stateOn
	default:
		return view{}, fmt.Errorf("reading the page's tools: %w", mainErr)
	}
	return v, nil
}

// find returns the tool a call names: by name, and by frame when several
// same-origin frames have one of that name.
func (v view) find(name, frame string) (Tool, *tools.Error) {
	var hits []Tool
	for _, t := range v.tools {
		if t.Name == name && (frame == "" || t.Frame == frame) {
			hits = append(hits, t)
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) == 0:
		return Tool{}, errNotFound(v.tab, name, len(v.tools))
	}
	frames := make([]string, len(hits))
	for i, t := range hits {
		frames[i] = t.Frame
	}
	return Tool{}, &tools.Error{Code: CodeAmbiguous, NextAction: listNext(v.tab),
		Message: fmt.Sprintf("%d frames of the page have a tool named %s; pass frame (one of %v, as observe page_tools lists them)", len(hits), quote(name), frames)}
}
