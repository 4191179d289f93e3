package trace

import (
	"fmt"
	"strings"
)

// Nodes are the DOM nodes (backend node ids) the report names, for the
// caller to describe as the page has them now.
func (r *Report) Nodes() []int64 {
	var out []int64
	seen := map[int64]bool{}
	add := func(n int64) {
		if n > 0 && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if r.LCP != nil {
		add(r.LCP.Node)
	}
	if r.CLS != nil {
		for _, s := range r.CLS.Shifted {
			add(s.Node)
		}
		for _, c := range r.CLS.Culprits {
			add(c.Node)
		}
	}
	if r.INP != nil {
		add(r.INP.Node)
	}
	return out
}

// SetElements fills each named node's Element from names (node id →
// description).
func (r *Report) SetElements(names map[int64]string) {
	if r.LCP != nil {
		r.LCP.Element = names[r.LCP.Node]
	}
	if r.CLS != nil {
		for i := range r.CLS.Shifted {
			r.CLS.Shifted[i].Element = names[r.CLS.Shifted[i].Node]
		}
		for i := range r.CLS.Culprits {
			r.CLS.Culprits[i].Element = names[r.CLS.Culprits[i].Node]
		}
	}
	if r.INP != nil {
		r.INP.Element = names[r.INP.Node]
	}
}

// element names a node for a person: its description from the page, else
// Chrome's own name for it.
func element(desc, chromeName string) string {
	switch {
	case desc != "":
		return desc
	case chromeName != "":
		return chromeName
	}
	return "an element no longer in the page"
}

// Text is the report for the agent, a few lines.
func (r *Report) Text() string {
	var b strings.Builder
	m := r.Metrics
	if r.Navigation {
		fmt.Fprintf(&b, "page load of %s\n", r.URL)
		fmt.Fprintf(&b, "TTFB %s · FCP %s · LCP %s · DOMContentLoaded %s · load %s\n", msText(m.TTFB), msText(m.FCP), msText(m.LCP), msText(m.DCL), msText(m.Load))
	}
	if l := r.LCP; l != nil {
		fmt.Fprintf(&b, "LCP %s: %s %s", msText(l.MS), l.Type, element(l.Element, l.NodeName))
		if l.URL != "" {
			fmt.Fprintf(&b, " from %s", l.URL)
		}
		b.WriteString("\n")
		if p := l.Phases; p != nil {
			fmt.Fprintf(&b, "  phases: TTFB %s", msText(p.TTFB))
			if p.LoadDelay != nil {
				fmt.Fprintf(&b, " · load delay %s · load time %s", msText(*p.LoadDelay), msText(*p.LoadTime))
			}
			fmt.Fprintf(&b, " · render delay %s\n", msText(p.RenderDelay))
		}
	}
	r.clsText(&b)
	if i := r.INP; i != nil {
		fmt.Fprintf(&b, "INP %s: %s on %s (input delay %s, processing %s, presentation %s; %d interaction(s))\n", msText(i.MS), i.Type,
			element(i.Element, i.NodeName), msText(i.InputDelay), msText(i.Processing), msText(i.Presentation), i.Interactions)
	} else {
		b.WriteString("INP: no interaction recorded\n")
	}
	r.taskText(&b)
	for _, n := range r.Notes {
		b.WriteString("note: " + n + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (r *Report) clsText(b *strings.Builder) {
	c := r.CLS
	if c == nil {
		b.WriteString("CLS 0: no layout shift\n")
		return
	}
	fmt.Fprintf(b, "CLS %.3f: %d shift(s) from %s", c.Score, c.Shifts, msText(c.StartMS))
	var moved []string
	for _, s := range c.Shifted {
		moved = append(moved, fmt.Sprintf("%s %gpx", element(s.Element, s.NodeName), s.Distance))
	}
	if len(moved) > 0 {
		b.WriteString("; moved: " + strings.Join(moved, ", "))
	}
	b.WriteString("\n")
	for _, k := range c.Culprits {
		what := map[string]string{"unsized_image": "image without width and height", "web_font": "web font swapped in"}[k.Kind]
		fmt.Fprintf(b, "  cause: %s", what)
		if k.Node != 0 {
			fmt.Fprintf(b, " %s", element(k.Element, k.NodeName))
		}
		if k.URL != "" {
			fmt.Fprintf(b, " (%s)", k.URL)
		}
		b.WriteString("\n")
	}
}

func (r *Report) taskText(b *strings.Builder) {
	fmt.Fprintf(b, "long tasks: %d, blocking %s", r.LongTaskCount, msText(r.BlockingMS))
	for i, t := range r.LongTasks {
		if i == 3 {
			break
		}
		fmt.Fprintf(b, "\n  %s at %s", msText(t.DurationMS), msText(t.StartMS))
		if t.Activity != "" {
			fmt.Fprintf(b, ": %s", t.Activity)
		}
		if t.Script != "" {
			fmt.Fprintf(b, " %s", t.Script)
		}
		if t.Function != "" {
			fmt.Fprintf(b, " %s()", t.Function)
		}
	}
	b.WriteString("\n")
	for _, q := range r.RenderBlocking {
		fmt.Fprintf(b, "render-blocking: %s (%s, %s)\n", q.URL, strings.ToLower(q.Type), msText(q.DurationMS))
	}
	for _, p := range r.ThirdParties {
		fmt.Fprintf(b, "third party %s: %d request(s), %s, %s main thread\n", p.Site, p.Requests, bytesText(p.Bytes), msText(p.MainThreadMS))
	}
	for _, s := range r.Scripts {
		third := ""
		if s.ThirdParty {
			third = ", third party"
		}
		fmt.Fprintf(b, "script %s: %s main thread%s\n", s.URL, msText(s.MainThreadMS), third)
	}
}

func msText(v float64) string { return fmt.Sprintf("%g ms", v) }

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
