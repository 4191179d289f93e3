package snapshot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A find query (Options.Find) picks snapshot lines:
//
//	Save                     a name, value or text containing "save" (any case)
//	"Save"                   a name, value or text that is exactly Save
//	text=Save, text="Save"   the same
//	role=button              every button
//	role=button[name=Save]   buttons whose name contains "save" (any case)
//	role=button[name="Save"] buttons named exactly Save ([name="Save" i]: any case, contained)
//
// Whitespace is collapsed on both sides; exact matches are case-sensitive.
type query struct {
	role  string
	want  string // the text or name to match; "" matches any name (role= only)
	exact bool
}

// parseFind reads a find query.
func parseFind(s string) (query, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "role="); ok {
		return parseRoleQuery(strings.TrimSpace(rest))
	}
	s = strings.TrimSpace(strings.TrimPrefix(s, "text="))
	v, exact, err := unquote(s)
	if err != nil {
		return query{}, err
	}
	if v = collapse(v); v == "" {
		return query{}, errors.New(`find needs text to look for, e.g. find:"Save" or find:"role=button[name=Save]"`)
	}
	return query{want: v, exact: exact}, nil
}

func parseRoleQuery(v string) (query, error) {
	role, attrs, hasAttrs := strings.Cut(v, "[")
	q := query{role: strings.ToLower(strings.TrimSpace(role))}
	if q.role == "" || strings.ContainsAny(q.role, " \"'=]") {
		return q, fmt.Errorf(`role= needs an ARIA role, e.g. role=button[name="Save"], got %q`, v)
	}
	if !hasAttrs {
		return q, nil
	}
	attrs, ok := strings.CutSuffix(strings.TrimSpace(attrs), "]")
	key, val, hasVal := strings.Cut(attrs, "=")
	if !ok || !hasVal || strings.TrimSpace(key) != "name" {
		return q, fmt.Errorf(`role= takes only [name="…"], got %q`, v)
	}
	val = strings.TrimSpace(val)
	flag := ""
	if n := len(val); n > 2 && val[n-2] == ' ' && (val[n-1] == 'i' || val[n-1] == 's') {
		flag, val = val[n-1:], strings.TrimSpace(val[:n-2])
	}
	name, exact, err := unquote(val)
	if err != nil {
		return q, err
	}
	q.want, q.exact = collapse(name), exact && flag != "i" || flag == "s"
	return q, nil
}

// unquote reads a value that may be quoted ("…" or '…'); quoting asks for
// an exact match.
func unquote(v string) (string, bool, error) {
	if len(v) < 2 || (v[0] != '"' && v[0] != '\'') {
		return v, false, nil
	}
	if v[len(v)-1] != v[0] {
		return "", false, fmt.Errorf("unterminated quote in %s", v)
	}
	if v[0] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u, true, nil
		}
	}
	return v[1 : len(v)-1], true, nil
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// String writes the query back for the answer's header.
func (q query) String() string {
	switch {
	case q.role == "":
		return strconv.Quote(q.want)
	case q.want == "":
		return "role=" + q.role
	case q.exact:
		return fmt.Sprintf("role=%s[name=%q]", q.role, q.want)
	}
	return fmt.Sprintf("role=%s[name=%q i]", q.role, q.want)
}

// matches reports whether a line shows a node the query asks for.
func (q query) matches(l line) bool {
	for i, n := range l.nodes {
		withKids := len(n.Kids) > 0 && len(l.nodes) == 1 // a row's cells print inline
		if i == 0 && len(l.nodes) > 1 {
			continue // the row itself: its cells are matched
		}
		if q.role != "" {
			if n.Role == q.role && (q.want == "" || q.text(n.Name)) {
				return true
			}
			continue
		}
		if shownName(n, withKids) && q.text(n.Name) || q.text(n.Text) {
			return true
		}
	}
	return false
}

func (q query) text(s string) bool {
	if s == "" {
		return false
	}
	s = collapse(s)
	if q.exact {
		return s == q.want
	}
	return strings.Contains(strings.ToLower(s), strings.ToLower(q.want))
}

// found are the lines a find answers: every matching line (up to max, 0 =
// all) with the lines of its ancestors, in document order.
func found(ls []line, q query, max int) (shown []line, matches int) {
	keep := make([]bool, len(ls))
	for i, l := range ls {
		if !q.matches(l) {
			continue
		}
		matches++
		if max > 0 && matches > max {
			continue
		}
		keep[i] = true
		for j, d := i-1, l.depth; j >= 0 && d > 0; j-- {
			if ls[j].depth < d {
				keep[j], d = true, ls[j].depth
			}
		}
	}
	for i, k := range keep {
		if k {
			shown = append(shown, ls[i])
		}
	}
	return shown, matches
}

// defaultFindLimit caps a find's matches when Options.Limit does not.
const defaultFindLimit = 50

// findText answers a find: the matching lines under their parents.
func findText(r *Result, ls []line, q query, limit int) {
	if limit == 0 {
		limit = defaultFindLimit
	}
	shown, matches := found(ls, q, limit)
	var b strings.Builder
	render(&b, shown)
	switch {
	case matches == 0:
		b.WriteString("no line matches; look for a shorter text, or take the whole snapshot\n")
	case limit > 0 && matches > limit:
		fmt.Fprintf(&b, "… %d more matches; pass limit=%d\n", matches-limit, matches)
	}
	r.Text, r.Shown, r.Nodes, r.Matches = b.String(), len(shown), len(ls), matches
	r.Note = fmt.Sprintf("find %s: %d of %d lines match", q, matches, len(ls))
}
