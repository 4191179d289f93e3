package actions

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Selector kinds.
const (
	KindCSS         = "css"
	KindText        = "text"
	KindRole        = "role"
	KindLabel       = "label"
	KindPlaceholder = "placeholder"
)

// Selector is a parsed selector: CSS, or one of the semantic forms
// text=Submit, text="Submit" (exact), role=button[name="Save"],
// label=Email, placeholder=Search. A trailing ` >> nth=N` (0-based) picks
// one of several matches.
type Selector struct {
	Kind  string `json:"kind"`
	Value string `json:"value,omitempty"` // CSS, text, label or placeholder to match
	Role  string `json:"role,omitempty"`
	Name  string `json:"name,omitempty"` // accessible name for role=; "" matches any
	// Exact matches the whole text or name (whitespace normalized, case
	// sensitive) only; otherwise an exact match is preferred, then a
	// case-insensitive substring.
	Exact bool `json:"exact,omitempty"`
	Nth   int  `json:"nth"` // -1: not given
}

// ParseSelector reads a selector string.
func ParseSelector(s string) (Selector, error) {
	s = strings.TrimSpace(s)
	sel := Selector{Nth: -1}
	if i := strings.LastIndex(s, ">>"); i >= 0 {
		rest := strings.TrimSpace(s[i+2:])
		if n, ok := strings.CutPrefix(rest, "nth="); ok {
			v, err := strconv.Atoi(strings.TrimSpace(n))
			if err != nil || v < 0 {
				return sel, fmt.Errorf("nth must be a number from 0, got %q", n)
			}
			sel.Nth = v
			s = strings.TrimSpace(s[:i])
		}
	}
	if s == "" {
		return sel, errors.New("the selector is empty")
	}
	kind, rest, ok := strings.Cut(s, "=")
	switch k := strings.TrimSpace(kind); {
	case !ok || !isSemantic(k):
		sel.Kind, sel.Value = KindCSS, s
		return sel, nil
	case k == KindRole:
		return parseRole(sel, strings.TrimSpace(rest))
	default:
		sel.Kind = k
		v, exact, err := unquote(strings.TrimSpace(rest))
		if err != nil {
			return sel, fmt.Errorf("%s=: %w", k, err)
		}
		if v == "" {
			return sel, fmt.Errorf("%s= needs a value, e.g. %s=Submit", k, k)
		}
		sel.Value, sel.Exact = v, exact
		return sel, nil
	}
}

func isSemantic(k string) bool {
	return k == KindText || k == KindRole || k == KindLabel || k == KindPlaceholder
}

// unquote reads a value that may be quoted ("…" or '…'); quoting asks for
// an exact match.
func unquote(v string) (string, bool, error) {
	if len(v) < 2 || (v[0] != '"' && v[0] != '\'') {
		return v, false, nil
	}
	q := v[0]
	if v[len(v)-1] != q {
		return "", false, fmt.Errorf("unterminated quote in %s", v)
	}
	body := v[1 : len(v)-1]
	if q == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u, true, nil
		}
	}
	return strings.ReplaceAll(body, `\`+string(q), string(q)), true, nil
}

// parseRole reads `button`, `button[name="Save"]`, `button[name=Save]`,
// `button[name="Save" i]` (case-insensitive substring allowed) or
// `button[name="Save" s]` (exact).
func parseRole(sel Selector, v string) (Selector, error) {
	sel.Kind = KindRole
	role, attrs, hasAttrs := strings.Cut(v, "[")
	sel.Role = strings.ToLower(strings.TrimSpace(role))
	if sel.Role == "" || strings.ContainsAny(sel.Role, " \"'=]") {
		return sel, fmt.Errorf(`role= needs an ARIA role, e.g. role=button[name="Save"], got %q`, v)
	}
	if !hasAttrs {
		return sel, nil
	}
	attrs = strings.TrimSpace(attrs)
	if !strings.HasSuffix(attrs, "]") {
		return sel, fmt.Errorf("unterminated [ in %q", v)
	}
	attrs = strings.TrimSpace(strings.TrimSuffix(attrs, "]"))
	key, val, ok := strings.Cut(attrs, "=")
	if !ok || strings.TrimSpace(key) != "name" {
		return sel, fmt.Errorf(`role= supports only [name="…"], got [%s]`, attrs)
	}
	val = strings.TrimSpace(val)
	flag := ""
	if n := len(val); n > 2 && val[n-2] == ' ' && (val[n-1] == 'i' || val[n-1] == 's') {
		flag, val = val[n-1:], strings.TrimSpace(val[:n-2])
	}
	name, exact, err := unquote(val)
	if err != nil {
		return sel, fmt.Errorf("role=%s: %w", sel.Role, err)
	}
	switch flag {
	case "i":
		exact = false
	case "s":
		exact = true
	}
	sel.Name, sel.Exact = name, exact
	return sel, nil
}

// String writes the selector back in its canonical form.
func (s Selector) String() string {
	var out string
	switch s.Kind {
	case KindCSS:
		out = s.Value
	case KindRole:
		out = "role=" + s.Role
		if s.Name != "" {
			out += "[name=" + strconv.Quote(s.Name)
			if !s.Exact {
				out += " i"
			}
			out += "]"
		}
	default:
		v := s.Value
		if s.Exact {
			v = strconv.Quote(v)
		}
		out = s.Kind + "=" + v
	}
	if s.Nth >= 0 {
		out += " >> nth=" + strconv.Itoa(s.Nth)
	}
	return out
}
