package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// wrappers are roles that print as their only child when they have
// nothing else to say.
var wrappers = map[string]bool{"listitem": true, "paragraph": true, "group": true}

var cellRoles = map[string]bool{"cell": true, "columnheader": true, "rowheader": true, "gridcell": true}

// line is one formatted line: its depth, its text without indentation,
// and the nodes it shows (one, or a table row and its cells).
type line struct {
	depth int
	text  string
	nodes []*Node
	ref   int // the ref the line carries first, 0 if none
}

// lines renders a snapshot forest as lines in document order, applying
// the depth and interactive-only options (not the limit). deeper counts
// the nodes the depth cap left out.
func lines(nodes []*Node, o Options) (out []line, deeper int) {
	f := formatter{depthCap: o.Depth}
	if o.InteractiveOnly {
		nodes = interactive(nodes)
	}
	for _, n := range nodes {
		f.node(n, 0)
	}
	return f.lines, f.deeper
}

// render writes lines one a line, indented one space per depth.
func render(b *strings.Builder, ls []line) {
	for _, l := range ls {
		for range l.depth {
			b.WriteByte(' ')
		}
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
}

// format renders a snapshot forest as text, one node a line, indented by
// depth, applying the depth, limit and interactive-only options. It
// returns the text and how many lines it shows of how many.
func format(nodes []*Node, o Options) (text string, shown, total int) {
	ls, deeper := lines(nodes, o)
	return formatLines(ls, deeper, o)
}

// formatLines is format for lines already rendered.
func formatLines(ls []line, deeper int, o Options) (text string, shown, total int) {
	total = len(ls)
	shown = total
	if o.Limit > 0 && shown > o.Limit {
		shown = o.Limit
	}
	var b strings.Builder
	render(&b, ls[:shown])
	if shown < total {
		fmt.Fprintf(&b, "… %d more nodes; pass limit=%d or a ref as root\n", total-shown, total)
	}
	if deeper > 0 {
		fmt.Fprintf(&b, "… %d nodes deeper than depth %d not shown; pass a larger depth or a ref as root\n", deeper, o.Depth)
	}
	return b.String(), shown, total
}

type formatter struct {
	depthCap int
	deeper   int
	lines    []line
}

func (f *formatter) node(n *Node, depth int) {
	if f.depthCap > 0 && depth >= f.depthCap {
		f.deeper += count(n)
		return
	}
	if row, shown, ok := rowLine(n); ok {
		f.lines = append(f.lines, line{depth: depth, text: row, nodes: shown, ref: firstRef(shown)})
		return
	}
	if wrappers[n.Role] && len(n.Kids) == 1 && n.Name == "" && n.Text == "" && n.Ref == 0 && len(n.Attrs) == 0 {
		f.node(n.Kids[0], depth) // a list item or paragraph around one node says nothing more
		return
	}
	f.lines = append(f.lines, line{depth: depth, text: head(n, len(n.Kids) > 0), nodes: []*Node{n}, ref: n.Ref})
	for _, k := range n.Kids {
		f.node(k, depth+1)
	}
}

// shownName reports whether a node's line prints its name: a name taken
// from the children prints only on a node whose children do not print.
func shownName(n *Node, withKids bool) bool {
	return n.Name != "" && !(n.nameFromKids && withKids)
}

// head is a node's line: role "name" [states] [eN]: text.
func head(n *Node, withKids bool) string {
	var b strings.Builder
	b.WriteString(n.Role)
	if shownName(n, withKids) {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(n.Name))
	}
	for _, a := range n.Attrs {
		b.WriteString(" [")
		b.WriteString(state(a))
		b.WriteByte(']')
	}
	if n.Ref > 0 {
		b.WriteString(" [")
		b.WriteString(refName(n.Ref))
		b.WriteByte(']')
	}
	if n.Text != "" {
		b.WriteString(": ")
		b.WriteString(n.Text)
	}
	return b.String()
}

// state prints a walker state; a closed disclosure reads [collapsed].
func state(a string) string {
	if a == "expanded=false" {
		return "collapsed"
	}
	if a == "name-not-visible" { // named by text no person sees (internal/visible.NotVisible)
		return "name not visible"
	}
	return a
}

func refName(n int) string { return "e" + strconv.Itoa(n) }

// rowLine prints a table row whose cells are simple on one line, cells
// joined by " | "; a cell holding one control shows it inline with its ref.
// shown lists the row, its cells and the controls the line shows.
func rowLine(n *Node) (text string, shown []*Node, ok bool) {
	if n.Role != "row" || len(n.Kids) == 0 || n.Ref != 0 || len(n.Attrs) > 0 {
		return "", nil, false
	}
	cells := make([]string, 0, len(n.Kids))
	shown = append(make([]*Node, 0, 2*len(n.Kids)+1), n)
	for _, c := range n.Kids {
		if !cellRoles[c.Role] || c.Ref != 0 || len(c.Attrs) > 0 || len(c.Kids) > 1 {
			return "", nil, false
		}
		switch {
		case len(c.Kids) == 0:
			cells = append(cells, cellText(c))
			shown = append(shown, c)
		case len(c.Kids[0].Kids) == 0 && c.Kids[0].Text == "" && c.Kids[0].Role != "text":
			cells = append(cells, head(c.Kids[0], false))
			shown = append(shown, c, c.Kids[0])
		default:
			return "", nil, false
		}
	}
	return "row: " + strings.Join(cells, " | "), shown, true
}

func cellText(c *Node) string {
	if c.Name != "" {
		return c.Name
	}
	return c.Text
}

func firstRef(ns []*Node) int {
	for _, n := range ns {
		if n.Ref > 0 {
			return n.Ref
		}
	}
	return 0
}

// count is the number of nodes in n's subtree, n included.
func count(n *Node) int {
	c := 1
	for _, k := range n.Kids {
		c += count(k)
	}
	return c
}

// interactive lists the controls (nodes with a ref and an interactive
// role) flat, in document order, each heading before them as a context
// line (without its level or ref), and iframes with their controls.
func interactive(nodes []*Node) []*Node {
	var out []*Node
	for _, n := range nodes {
		kids := interactive(n.Kids)
		switch {
		case n.Ref > 0 && interactiveRoles[n.Role]:
			c := *n
			c.Kids = nil
			out = append(out, &c)
			out = append(out, kids...)
		case n.Role == "heading" && n.Name != "" && !n.nameFromKids: // else its control carries the name
			out = append(out, &Node{Role: "heading", Name: n.Name})
			out = append(out, kids...)
		case n.Role == "iframe" && len(kids) > 0:
			c := *n
			c.Kids = kids
			out = append(out, &c)
		default:
			out = append(out, kids...)
		}
	}
	// A heading with no control before the next heading says nothing.
	kept := out[:0]
	for i, n := range out {
		if n.Role == "heading" && n.Ref == 0 && (i+1 == len(out) || out[i+1].Role == "heading") {
			continue
		}
		kept = append(kept, n)
	}
	return kept
}

var interactiveRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "switch": true, "slider": true, "spinbutton": true,
	"treeitem": true, "gridcell": true, "generic": true,
}
