package analyze

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/visible"
)

//go:embed dom.js
var domJS string

var domFn = script(domJS)

// DOMReport is analyze dom's answer; the tree itself is the text.
type DOMReport struct {
	TabID int    `json:"tab_id"`
	URL   string `json:"url"`
	// Matches counts the elements the selector matched (the first is
	// shown).
	Matches       int            `json:"matches"`
	Nodes         []DOMNode      `json:"nodes"`
	Cut           int            `json:"cut,omitempty"`    // nodes past limit
	Deeper        int            `json:"deeper,omitempty"` // elements past depth
	HiddenDropped int            `json:"hidden_dropped,omitempty"`
	HiddenReasons map[string]int `json:"hidden_reasons,omitempty"` // HiddenDropped by reason (internal/visible)
}

// DOMNode is one node of the subtree: an element (Tag, Attrs), a text run
// (Text) or a shadow root (Shadow: open).
type DOMNode struct {
	Depth  int         `json:"d"`
	Tag    string      `json:"tag,omitempty"`
	Attrs  [][2]string `json:"attrs,omitempty"`
	Text   string      `json:"text,omitempty"`
	Shadow string      `json:"shadow,omitempty"`
	Ref    refNum      `json:"ref,omitempty"`
	Hidden bool        `json:"hidden,omitempty"`
	// Unseen names the attributes whose values no person sees on the
	// page (data-*, title, alt, aria-label, a hidden input's value …):
	// page text all the same, printed apart and labelled "not visible".
	Unseen []string `json:"not_visible,omitempty"`
}

// defaultDOMDepth is analyze dom's depth when the call sets none.
const defaultDOMDepth = 6

func (a *Analyzer) dom(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.release()
	opts := map[string]any{"selector": c.Args.Selector, "depth": cmp.Or(c.Args.Depth, defaultDOMDepth), "limit": limitOf(c, 100, 1000),
		"max_attr": 120, "max_text": 200}
	if ref := c.Args.Ref; ref != "" {
		n, err := a.rootRef(ctx, p, ref)
		if err != nil {
			return nil, err
		}
		opts["root_ref"] = n
	}
	var r DOMReport
	if err := p.call(ctx, domFn(), opts, &r); err != nil {
		return nil, err
	}
	r.TabID = p.tab
	for i := range r.Nodes {
		r.Nodes[i].Ref = a.ref(p.tab, r.Nodes[i].Ref)
	}
	return pageResult(domText(&r, cmp.Or(c.Args.Depth, defaultDOMDepth)), r, r.page())
}

// rootRef checks that ref addresses an element of the tab's latest
// snapshot in the main frame, and returns its number.
func (a *Analyzer) rootRef(ctx context.Context, p *tabPage, ref string) (int, error) {
	t, err := a.cfg.Snapshots.Resolve(ctx, p.tab, ref)
	var stale *snapshot.StaleRefError
	switch {
	case errors.As(err, &stale):
		return 0, &tools.Error{Code: "stale_ref", Message: stale.Error(), NextAction: &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "snapshot"}}}
	case errors.As(err, new(*snapshot.ArgError)):
		return 0, tools.Errorf(tools.CodeInvalidArgument, "%q is not a ref (refs look like e12; pass CSS as selector)", ref)
	case err != nil:
		return 0, err
	case t.SessionID != "" || t.FrameID != "" && t.FrameID != p.frame:
		return 0, tools.Errorf(tools.CodeInvalidArgument, "ref %s (%s) is inside an iframe; analyze dom reads the main frame", ref, t.Desc)
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(ref), "e"))
	return n, nil
}

func domText(r *DOMReport, depth int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d node(s)", r.TabID, len(r.Nodes))
	if r.Matches > 1 {
		fmt.Fprintf(&b, " (the first of %d matches)", r.Matches)
	}
	for _, n := range r.Nodes {
		b.WriteString("\n" + strings.Repeat("  ", n.Depth))
		switch {
		case n.Shadow != "":
			fmt.Fprintf(&b, "#shadow-root (%s)", n.Shadow)
		case n.Tag == "":
			fmt.Fprintf(&b, "%q", n.Text)
		default:
			b.WriteString("<" + n.Tag)
			var unseen []string
			for _, at := range n.Attrs {
				switch {
				case slices.Contains(n.Unseen, at[0]):
					unseen = append(unseen, fmt.Sprintf("%s=%q", at[0], at[1]))
				case at[1] == "":
					b.WriteString(" " + at[0])
				default:
					fmt.Fprintf(&b, " %s=%q", at[0], at[1])
				}
			}
			b.WriteString(">")
			if n.Hidden {
				b.WriteString(" [hidden]")
			}
			b.WriteString(refSuffix(n.Ref))
			if len(unseen) > 0 {
				fmt.Fprintf(&b, " [%s: %s]", visible.NotVisible, strings.Join(unseen, " "))
			}
		}
	}
	if r.Cut > 0 {
		fmt.Fprintf(&b, "\n… %d more nodes: pass a larger limit, or a ref or selector deeper in", r.Cut)
	}
	if r.Deeper > 0 {
		fmt.Fprintf(&b, "\n… %d elements deeper than depth %d: pass a larger depth", r.Deeper, depth)
	}
	return b.String()
}
