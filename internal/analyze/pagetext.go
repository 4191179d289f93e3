package analyze

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/untrusted"
)

// Each answer declares its page text (mcpserver.PageResult): the strings
// that came from the page or what it sent and logged — its address, an
// element's HTML, selector, name and text, a table's cells, a console
// message, a URL, a cookie's name — apart from Gasoline's words and
// axe-core's (a rule's help, description and fix summary, an issue's
// title), which the instruction scanner does not read: "Ensure every
// ARIA button, link and menuitem has an accessible name" is no page's
// instruction to the agent.

// pageResult is result with its page text declared.
func pageResult(text string, v any, page *untrusted.Page) (*mcp.CallToolResult, error) {
	res, err := result(text, v)
	if err != nil {
		return nil, err
	}
	return mcpserver.WithPage(res, page), nil
}

func (r *A11yReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, v := range r.Violations {
		for _, n := range v.Nodes {
			p.Add(n.Selector, n.HTML)
		}
	}
	return p
}

func (r *ClustersReport) page() *untrusted.Page {
	p := new(untrusted.Page)
	for _, c := range r.Clusters {
		p.Add(c.Pattern, c.Location).Add(c.Examples...).Add(c.Related...)
	}
	return p
}

func (r *DOMReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, n := range r.Nodes {
		p.Add(n.Tag, n.Text)
		for _, a := range n.Attrs {
			p.Add(a[0], a[1])
		}
	}
	return p
}

func (r *FormsReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, f := range r.Forms {
		p.Add(f.ID, f.Name, f.Label, f.Action, f.Selector)
		for _, is := range f.Issues {
			p.AddQuoted(is)
		}
		for _, x := range f.Fields {
			p.Add(x.Name, x.ID, x.Label, x.Autocomplete, x.Message, x.Selector).Add(x.Selected...)
			for _, c := range x.Constraints {
				p.Add(c)
			}
		}
		for _, b := range f.Buttons {
			p.Add(b.Text, b.Selector)
		}
	}
	return p
}

func (r *IssuesReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, is := range r.Issues {
		p.Add(is.Target)
		switch is.Category {
		case "error", "network": // the title is the page's message, the detail its related requests
			p.Add(is.Title, is.Detail)
		case "security":
			p.AddQuoted(is.Title)
		}
	}
	return p
}

func (r *LinksReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, l := range r.Links {
		p.Add(l.URL, l.Text, l.FinalURL)
	}
	return p
}

func (r *PerfReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, x := range append(r.Largest, r.Slowest...) {
		p.Add(x.URL)
	}
	return p
}

func (r *SecurityReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, f := range r.Findings {
		p.Add(f.Key, f.Where).AddQuoted(f.Title)
	}
	for _, c := range r.Cookies {
		p.Add(c.Name, c.Domain)
	}
	for k, v := range r.Headers {
		p.Add(k, v)
	}
	return p
}

func (s *PageSummary) page() *untrusted.Page {
	p := new(untrusted.Page).Add(s.URL, s.Title, s.Description, s.Lang, s.Heading, s.Intro).Add(s.Landmarks...)
	for _, h := range s.Outline {
		p.Add(h.Text)
	}
	for _, c := range append(append(append([]Control(nil), s.Inputs...), s.Buttons...), s.Links...) {
		p.Add(c.Name)
	}
	return p
}

func (r *TablesReport) page() *untrusted.Page {
	p := new(untrusted.Page).Add(r.URL)
	for _, t := range r.Tables {
		p.Add(t.Selector, t.Caption).Add(t.Headers...)
		for _, row := range t.Rows {
			p.Add(row...)
		}
	}
	return p
}
