package pagetools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

//go:embed sweep.js
var sweepJS string

// worldName is Gasoline's isolated world (the actions engine's too; Chrome
// hands back the same world for the same name).
const worldName = "gasoline"

// maxFrames bounds the frames a listing reads.
const maxFrames = 16

// frame is one frame of the tab that may hold page tools.
type frame struct {
	id, url, origin string
	main            bool
}

// frames returns the tab's main frame and the frames of the same origin
// under it (at most maxFrames), and how many frames of other origins it
// left out.
func frames(ctx context.Context, s cdproto.Session) ([]frame, int, error) {
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return nil, 0, fmt.Errorf("reading the frame tree: %w", err)
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return nil, 0, fmt.Errorf("the tab has no main frame")
	}
	top := tree.FrameTree.Frame
	out := []frame{{id: string(top.ID), url: top.URL, origin: top.SecurityOrigin, main: true}}
	others := 0
	var walk func(children []*page.FrameTree)
	walk = func(children []*page.FrameTree) {
		for _, c := range children {
			if c.Frame == nil {
				continue
			}
			if c.Frame.SecurityOrigin == top.SecurityOrigin && top.SecurityOrigin != "" && len(out) < maxFrames {
				out = append(out, frame{id: string(c.Frame.ID), url: c.Frame.URL, origin: c.Frame.SecurityOrigin})
			} else {
				others++
			}
			walk(c.ChildFrames)
		}
	}
	walk(tree.FrameTree.ChildFrames)
	return out, others, nil
}

// swept is what sweep.js answers for one frame.
type swept struct {
	WebMCP bool   `json:"webmcp"`
	Error  string `json:"error"`
	More   bool   `json:"more"`
	Tools  []struct {
		Name          string          `json:"name"`
		Title         string          `json:"title"`
		Description   string          `json:"description"`
		InputSchema   json.RawMessage `json:"inputSchema"`
		SchemaTooBig  bool            `json:"schemaTooBig"`
		ReadOnly      bool            `json:"readOnly"`
		Untrusted     bool            `json:"untrusted"`
		Consequential bool            `json:"consequential"`
		Declarative   bool            `json:"declarative"`
		Autosubmit    bool            `json:"autosubmit"`
	} `json:"tools"`
}

// sweep reads one frame's tools in Gasoline's isolated world.
func sweep(ctx context.Context, s cdproto.Session, f frame) (swept, error) {
	no, yes := false, true
	w, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdproto.FrameID(f.id), WorldName: worldName, GrantUniveralAccess: &no})
	if err != nil {
		return swept{}, fmt.Errorf("reading the page's tools in frame %s: %w", f.id, err)
	}
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: sweepJS, ContextID: w.ExecutionContextID,
		AwaitPromise: &yes, ReturnByValue: &yes, Silent: &yes})
	if err != nil {
		return swept{}, fmt.Errorf("reading the page's tools in frame %s: %w", f.id, err)
	}
	if res.ExceptionDetails != nil {
		return swept{}, fmt.Errorf("reading the page's tools in frame %s: %s", f.id, res.ExceptionDetails.Text)
	}
	var out swept
	if err := json.Unmarshal(res.Result.Value, &out); err != nil {
		return swept{}, fmt.Errorf("reading the page's tools in frame %s: %w", f.id, err)
	}
	return out, nil
}

// merge joins what Chrome reported (reg) with what the sweeps read: the
// sweep adds titles, and the tools of frames Chrome did not replay when
// WebMCP was enabled after they registered. Tools of frames not listed
// (other origins, or gone) are left out and counted.
func merge(reg []Tool, fs []frame, sw map[string]swept) (tools []Tool, otherOrigin int) {
	in := map[string]bool{}
	for _, f := range fs {
		in[f.id] = true
	}
	seen := map[toolKey]int{}
	for _, t := range reg {
		if !in[t.Frame] {
			otherOrigin++
			continue
		}
		seen[toolKey{t.Frame, t.Name}] = len(tools)
		tools = append(tools, t)
	}
	for _, f := range fs {
		for _, x := range sw[f.id].Tools {
			if i, ok := seen[toolKey{f.id, x.Name}]; ok {
				t := &tools[i]
				t.Title = x.Title
				t.Declarative = t.Declarative || x.Declarative
				t.Autosubmit = t.Autosubmit || x.Autosubmit
				if len(t.Schema) == 0 && !t.SchemaTooBig { // Chrome's event can lose a schema the page gave
					t.Schema, t.SchemaTooBig = schemaOf(x.InputSchema), x.SchemaTooBig
				}
				continue
			}
			seen[toolKey{f.id, x.Name}] = len(tools)
			tools = append(tools, Tool{Name: x.Name, Title: x.Title, Description: x.Description, Frame: f.id,
				Schema: schemaOf(x.InputSchema), SchemaTooBig: x.SchemaTooBig, ReadOnly: x.ReadOnly, Untrusted: x.Untrusted,
				Consequential: x.Consequential, Declarative: x.Declarative, Autosubmit: x.Autosubmit})
		}
	}
	sortTools(tools, fs)
	return tools, otherOrigin
}

// sortTools orders tools by frame (main frame first, then document order)
// and name.
func sortTools(tools []Tool, fs []frame) {
	rank := map[string]int{}
	for i, f := range fs {
		rank[f.id] = i
	}
	slices.SortFunc(tools, func(a, b Tool) int {
		if d := rank[a.Frame] - rank[b.Frame]; d != 0 {
			return d
		}
		return strings.Compare(a.Name, b.Name)
	})
}
