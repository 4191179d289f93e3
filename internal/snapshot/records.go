package snapshot

import (
	"fmt"
	"strconv"
	"strings"
)

// Node is one node of an accessibility snapshot.
type Node struct {
	Role  string   // ARIA role: button, link, textbox, …; "text" for a text run
	Name  string   // accessible name, whitespace collapsed and truncated
	Attrs []string // states: checked, disabled, expanded, level=2, …
	Ref   int      // ref number (eN), 0 if none
	Text  string   // inline text: a text run, a text-only node's content or a control's value
	Kids  []*Node

	nameFromKids bool // the name repeats the children's text, so only they print
	remote       bool // an iframe whose document the walker could not enter
}

// parseRecords reads the walker's records (one a line: depth \t role \t
// name \t attrs \t ref \t text) into a forest.
func parseRecords(s string) ([]*Node, error) {
	var top []*Node
	var stack []*Node // stack[d] is the last node at depth d
	for line := range strings.SplitSeq(s, "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 6)
		if len(f) != 6 {
			return nil, fmt.Errorf("snapshot: malformed walker record %q", clip(line, 60))
		}
		depth, err := strconv.Atoi(f[0])
		if err != nil || depth < 0 || depth > len(stack) {
			return nil, fmt.Errorf("snapshot: bad depth in walker record %q", clip(line, 60))
		}
		n := &Node{Role: f[1], Name: f[2], Text: f[5]}
		if f[4] != "" {
			if n.Ref, err = strconv.Atoi(f[4]); err != nil {
				return nil, fmt.Errorf("snapshot: bad ref in walker record %q", clip(line, 60))
			}
		}
		for a := range strings.FieldsSeq(f[3]) {
			switch a {
			case "nfc":
				n.nameFromKids = true
			case "remote":
				n.remote = true
			default:
				n.Attrs = append(n.Attrs, a)
			}
		}
		stack = append(stack[:depth], n)
		if depth == 0 {
			top = append(top, n)
		} else {
			p := stack[depth-1]
			p.Kids = append(p.Kids, n)
		}
	}
	return top, nil
}

// walk calls f on every node of the forest in document order.
func walk(nodes []*Node, f func(*Node)) {
	for _, n := range nodes {
		f(n)
		walk(n.Kids, f)
	}
}

// desc names a node for an error message: button "Save".
func (n *Node) desc() string {
	if n.Name == "" {
		return n.Role
	}
	return n.Role + " " + strconv.Quote(n.Name)
}

// clip shortens s to at most max runes, marking the cut with "…".
func clip(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}
