package untrusted

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Page is the page text of one tool result, as the handler that made it
// knows it: the strings that came from web pages — a snapshot's tree, an
// element's name, a title, a URL, a console message, a dialog's text, a
// value read from a field — apart from Gasoline's own words (its messages,
// hints, next_action, headers, listings, the "changed:" lines it writes
// around them). Scan reads these passages and nothing else; the result's
// text and structuredContent only tell it where each one is. A result with
// no Page is scanned whole (Input.Page).
//
// A Page marshals to null: it travels inside the daemon as a Go value and
// says nothing if it ever reaches a wire.
type Page struct {
	passages []string
}

// Add adds page strings ("" is skipped).
func (p *Page) Add(s ...string) *Page {
	for _, x := range s {
		if x != "" {
			p.passages = append(p.passages, x)
		}
	}
	return p
}

// AddValue adds every string of a value that came from a page (a
// script's result, a field's value, an attribute map, captured entries):
// strings and the strings inside arrays, maps and structs, at any depth,
// and the keys of maps (a page names those); the field names of structs
// are Gasoline's and are not added.
func (p *Page) AddValue(v any) *Page { return p.addValue(v, true) }

func (p *Page) addValue(v any, keys bool) *Page {
	switch x := v.(type) {
	case nil, bool, float64, int, int64, json.Number:
	case string:
		p.Add(x)
	case []string:
		p.Add(x...)
	case []any:
		for _, e := range x {
			p.addValue(e, keys)
		}
	case map[string]any:
		for k, e := range x {
			if keys {
				p.Add(k)
			}
			p.addValue(e, keys)
		}
	default: // a struct, or a map or slice of them: through its JSON
		raw, err := json.Marshal(v)
		if err != nil {
			return p
		}
		var d any
		if json.Unmarshal(raw, &d) == nil {
			p.addValue(d, false)
		}
	}
	return p
}

// AddQuoted adds what a message of Gasoline's quotes from a page: its
// double-quoted strings (Go's %q; an error names an element, a dialog or a
// title that way). The words around them are Gasoline's and are not added.
func (p *Page) AddQuoted(msg string) *Page { return p.Add(Quoted(msg)...) }

// Passages returns the page strings, in the order they were added.
func (p *Page) Passages() []string {
	if p == nil {
		return nil
	}
	return p.passages
}

// MarshalJSON keeps page text off any wire a Page reaches by mistake.
func (p *Page) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// Quoted returns the double-quoted strings of a message, unquoted: Go
// string literals as %q writes them.
func Quoted(msg string) []string {
	var out []string
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			continue
		}
		end := closingQuote(msg, i)
		if end < 0 {
			break
		}
		if s, err := strconv.Unquote(msg[i : end+1]); err == nil {
			out = append(out, s)
		} else {
			out = append(out, strings.ReplaceAll(msg[i+1:end], `\"`, `"`))
		}
		i = end
	}
	return out
}
