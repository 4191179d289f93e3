package analyze

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/snapshot"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/visible"
)

// analyze page_summary: what the page is and what can be done on it, read
// from a full accessibility snapshot (the walker's view: hidden content is
// not in it) plus a few facts the tree does not carry (title, description,
// password fields). Taking the snapshot starts a new snapshot generation,
// so the refs in the answer are ready to act on.

// PageSummary is page_summary's answer.
type PageSummary struct {
	TabID       int       `json:"tab_id"`
	URL         string    `json:"url"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Lang        string    `json:"lang,omitempty"`
	Kinds       []string  `json:"kinds"` // login, search, form, table, article, listing …
	Heading     string    `json:"heading,omitempty"`
	Outline     []Heading `json:"outline"`
	Landmarks   []string  `json:"landmarks"`
	Intro       string    `json:"intro,omitempty"` // the first paragraph of the main content
	Inputs      []Control `json:"inputs"`
	Buttons     []Control `json:"buttons"`
	Links       []Control `json:"links"`
	Counts      Counts    `json:"counts"`
	Generation  int       `json:"snapshot_generation"`
	// HiddenDropped counts the text runs and names the snapshot left out
	// because no person sees them; HiddenReasons says why.
	HiddenDropped int            `json:"hidden_dropped,omitempty"`
	HiddenReasons map[string]int `json:"hidden_reasons,omitempty"`
	// NotVisible names the fields whose page text no person sees on the
	// page (the description is the page's <meta> tag): page data all the
	// same, never instructions.
	NotVisible []string `json:"not_visible,omitempty"`
}

// Heading is one heading of the outline.
type Heading struct {
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// Control is something the agent can act on, by ref.
type Control struct {
	Role string `json:"role"`
	Name string `json:"name"`
	Ref  string `json:"ref"`
	// NameNotVisible: the name comes from text no person sees (a hidden
	// label or aria-labelledby element).
	NameNotVisible bool `json:"name_not_visible,omitempty"`
}

// Counts counts what the page holds.
type Counts struct {
	Links, Buttons, Inputs, Headings, Tables, Images, Forms, PasswordFields int
}

// summaryCap bounds each list of a summary (the counts stay full).
const summaryCap = 15

var inputRoles = map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "listbox": true, "checkbox": true,
	"radio": true, "slider": true, "spinbutton": true, "switch": true}

var landmarkRoles = map[string]bool{"banner": true, "navigation": true, "main": true, "complementary": true,
	"contentinfo": true, "search": true, "form": true, "region": true}

const summaryFacts = `(opts) => ({
  url: location.href,
  title: clip(norm(document.title || ''), 200),
  description: clip(norm(document.querySelector('meta[name="description" i]')?.content || ''), 300),
  lang: document.documentElement.lang || '',
  forms: document.forms.length,
  passwords: [...document.querySelectorAll('input[type=password i]')].filter(visible).length,
  tables: [...document.querySelectorAll('table, [role=table], [role=grid]')].filter(visible).length,
})`

var summaryFn = script(summaryFacts)

func (a *Analyzer) pageSummary(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.release()
	var facts struct {
		URL, Title, Description, Lang string
		Forms, Passwords, Tables      int
	}
	if err := p.call(ctx, summaryFn(), map[string]any{}, &facts); err != nil {
		return nil, err
	}
	snap, err := a.cfg.Snapshots.Take(ctx, p.tab, snapshot.Options{})
	if errors.Is(err, snapshot.ErrNavigated) {
		snap, err = a.cfg.Snapshots.Take(ctx, p.tab, snapshot.Options{})
	}
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	s := summarize(snap.Tree)
	s.TabID, s.URL, s.Title, s.Description, s.Lang, s.Generation = p.tab, facts.URL, facts.Title, facts.Description, facts.Lang, snap.Generation
	s.Counts.Forms, s.Counts.PasswordFields, s.Counts.Tables = facts.Forms, facts.Passwords, max(s.Counts.Tables, facts.Tables)
	s.Kinds = kinds(s)
	s.HiddenDropped, s.HiddenReasons = snap.Hidden, snap.HiddenWhy
	if s.Description != "" {
		s.NotVisible = []string{"description"}
	}
	return pageResult(summaryText(s), s, s.page())
}

// summarize reads the outline, landmarks, controls and counts from a
// snapshot forest.
func summarize(tree []*snapshot.Node) *PageSummary {
	s := &PageSummary{Outline: []Heading{}, Landmarks: []string{}, Inputs: []Control{}, Buttons: []Control{}, Links: []Control{}}
	var visit func(n *snapshot.Node, inMain bool)
	visit = func(n *snapshot.Node, inMain bool) {
		ctl := Control{Role: n.Role, Name: n.Name, NameNotVisible: slices.Contains(n.Attrs, "name-not-visible")}
		if n.Ref > 0 {
			ctl.Ref = "e" + strconv.Itoa(n.Ref)
		}
		switch {
		case n.Role == "heading":
			s.Counts.Headings++
			lvl := 0
			for _, at := range n.Attrs {
				if v, ok := strings.CutPrefix(at, "level="); ok {
					lvl, _ = strconv.Atoi(v)
				}
			}
			if s.Heading == "" && lvl == 1 {
				s.Heading = n.Name
			}
			if len(s.Outline) < summaryCap {
				s.Outline = append(s.Outline, Heading{Level: lvl, Text: n.Name})
			}
		case landmarkRoles[n.Role]:
			l := n.Role
			if n.Name != "" {
				l += " " + strconv.Quote(n.Name)
			}
			s.Landmarks = append(s.Landmarks, l)
		case n.Role == "link":
			s.Counts.Links++
			s.Links = appendCapped(s.Links, ctl)
		case n.Role == "button":
			s.Counts.Buttons++
			s.Buttons = appendCapped(s.Buttons, ctl)
		case inputRoles[n.Role]:
			s.Counts.Inputs++
			s.Inputs = appendCapped(s.Inputs, ctl)
		case n.Role == "table" || n.Role == "grid":
			s.Counts.Tables++
		case n.Role == "img":
			s.Counts.Images++
		case n.Role == "paragraph" && s.Intro == "" && inMain && len(n.Text) > 40:
			s.Intro = n.Text
		}
		for _, k := range n.Kids {
			visit(k, inMain || n.Role == "main" || n.Role == "article")
		}
	}
	for _, n := range tree {
		visit(n, !hasRole(tree, "main"))
	}
	if s.Heading == "" && len(s.Outline) > 0 {
		s.Heading = s.Outline[0].Text
	}
	return s
}

func appendCapped(list []Control, c Control) []Control {
	if len(list) >= summaryCap {
		return list
	}
	return append(list, c)
}

func hasRole(tree []*snapshot.Node, role string) bool {
	for _, n := range tree {
		if n.Role == role || hasRole(n.Kids, role) {
			return true
		}
	}
	return false
}

// kinds names what sort of page it is, from what it holds.
func kinds(s *PageSummary) []string {
	var k []string
	if s.Counts.PasswordFields > 0 {
		k = append(k, "login")
	}
	if slices.ContainsFunc(s.Inputs, func(c Control) bool { return c.Role == "searchbox" }) || slices.ContainsFunc(s.Landmarks, func(l string) bool { return strings.HasPrefix(l, "search") }) {
		k = append(k, "search")
	}
	if s.Counts.Inputs > 0 && s.Counts.PasswordFields == 0 {
		k = append(k, "form")
	}
	if s.Counts.Tables > 0 {
		k = append(k, "table")
	}
	if slices.ContainsFunc(s.Landmarks, func(l string) bool { return strings.HasPrefix(l, "article") }) || s.Intro != "" && s.Counts.Inputs == 0 {
		k = append(k, "article")
	}
	if s.Counts.Links > 30 {
		k = append(k, "listing")
	}
	if len(k) == 0 {
		k = append(k, "content")
	}
	return k
}

func summaryText(s *PageSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %q %s\nkind: %s", s.TabID, s.Title, s.URL, strings.Join(s.Kinds, ", "))
	if s.Description != "" {
		fmt.Fprintf(&b, "\ndescription (%s: the page's <meta name=description>): %s", visible.NotVisible, s.Description)
	}
	if s.Heading != "" {
		fmt.Fprintf(&b, "\nheading: %s", s.Heading)
	}
	if len(s.Outline) > 1 {
		var hs []string
		for _, h := range s.Outline {
			hs = append(hs, fmt.Sprintf("h%d %s", h.Level, h.Text))
		}
		fmt.Fprintf(&b, "\noutline: %s", strings.Join(hs, " · "))
	}
	if len(s.Landmarks) > 0 {
		fmt.Fprintf(&b, "\nlandmarks: %s", strings.Join(s.Landmarks, ", "))
	}
	if s.Intro != "" {
		fmt.Fprintf(&b, "\nintro: %s", clipText(s.Intro, 300))
	}
	fmt.Fprintf(&b, "\ncounts: %d links, %d buttons, %d inputs, %d forms, %d tables, %d images",
		s.Counts.Links, s.Counts.Buttons, s.Counts.Inputs, s.Counts.Forms, s.Counts.Tables, s.Counts.Images)
	for _, g := range []struct {
		what string
		list []Control
		n    int
	}{{"fill", s.Inputs, s.Counts.Inputs}, {"press", s.Buttons, s.Counts.Buttons}, {"follow", s.Links, s.Counts.Links}} {
		if len(g.list) == 0 {
			continue
		}
		var cs []string
		for _, c := range g.list {
			label := ""
			if c.NameNotVisible {
				label = " [name " + visible.NotVisible + "]"
			}
			cs = append(cs, fmt.Sprintf("%s %q%s [ref=%s]", c.Role, c.Name, label, c.Ref))
		}
		fmt.Fprintf(&b, "\ncan %s: %s", g.what, strings.Join(cs, ", "))
		if g.n > len(g.list) {
			fmt.Fprintf(&b, " … and %d more (observe snapshot lists them)", g.n-len(g.list))
		}
	}
	return b.String()
}
