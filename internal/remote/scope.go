package remote

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// CodeOutOfScope is the tool error of a call outside a remote agent's
// scope.
const CodeOutOfScope = "out_of_scope"

// DefaultTools is the scope of `remote add` without --tools: every tool,
// each change still waiting for the user's approval as for any agent.
var DefaultTools = []string{"observe", "interact", "analyze", "generate", "configure"}

// Scope is what a remote agent may do: tools ("interact") or single modes
// ("interact.click"), on pages of the origins named.
type Scope struct {
	Name    string // the remote agent's name, for error messages
	Tools   []string
	Origins []policy.OriginPattern
}

// ParseTools checks a --tools list: each entry a tool or tool.mode of the
// table.
func ParseTools(list []string) ([]string, error) {
	var out []string
	for _, raw := range list {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		tool, mode, hasMode := strings.Cut(e, ".")
		if _, ok := tools.Get(tool); !ok {
			return nil, fmt.Errorf("--tools: %q is not a Gasoline tool (observe, interact, analyze, generate, configure, or tool.mode such as interact.click)", e)
		}
		if hasMode {
			if _, ok := tools.Lookup(tool, mode); !ok {
				return nil, fmt.Errorf("--tools: %s has no mode %q (configure describe_capabilities lists them)", tool, mode)
			}
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--tools is empty: name tools (observe,interact) or modes (interact.click)")
	}
	return out, nil
}

// ParseOrigins checks an --origins list: origin patterns as the policy
// writes them ("https://app.example", "http://localhost:*",
// "https://*.example.com"), or "*" for any http or https page.
func ParseOrigins(list []string) ([]policy.OriginPattern, error) {
	var out []policy.OriginPattern
	for _, raw := range list {
		e := strings.TrimSpace(raw)
		if e == "" {
			continue
		}
		if e != "*" && !strings.HasPrefix(e, "http://") && !strings.HasPrefix(e, "https://") {
			return nil, fmt.Errorf("--origins: %q: an agent only works on http and https pages; write https://host[:port], http://localhost:*, https://*.example.com or *", e)
		}
		p, err := policy.ParseOriginPattern(e)
		if err != nil {
			return nil, fmt.Errorf("--origins: %v", err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--origins is empty: name the sites the agent may work on (https://app.example, http://localhost:*), or * for any")
	}
	return out, nil
}

// ScopeOf is a stored agent's scope. Entries that no longer parse (a
// store edited by hand) are dropped: they allow nothing.
func ScopeOf(a Agent) Scope {
	s := Scope{Name: a.Name, Tools: a.Tools}
	for _, o := range a.Origins {
		if p, err := ParseOrigins([]string{o}); err == nil {
			s.Origins = append(s.Origins, p...)
		}
	}
	return s
}

// AllowsMode reports whether the scope names the mode or its tool.
func (s Scope) AllowsMode(m *tools.Mode) bool {
	return slices.Contains(s.Tools, m.Tool) || slices.Contains(s.Tools, m.Key())
}

// AllowsPage reports whether a page's URL is in the scope: a blank page
// (a new tab) always is, anything but http and https never.
func (s Scope) AllowsPage(raw string) bool {
	if raw == "" || raw == "about:blank" {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	return slices.ContainsFunc(s.Origins, func(p policy.OriginPattern) bool { return p.Matches(raw) })
}

func (s Scope) origins() string {
	out := make([]string, len(s.Origins))
	for i, p := range s.Origins {
		out[i] = p.String()
	}
	return strings.Join(out, ", ")
}

// Call is what Check judges of one call.
type Call struct {
	Mode *tools.Mode
	// Target is the URL the call opens (navigate, new_tab), or "".
	Target string
	// Page is the URL of the tab the call acts on, or "" (none).
	Page string
	// Paths: the call names files on the user's machine (upload files).
	Paths bool
}

// Check returns nil when the call is in the scope, else the error the
// agent gets: what it may do, and that only the user widens it.
func (s Scope) Check(c Call) *tools.Error {
	widen := fmt.Sprintf("only the user widens it: gasoline-host remote revoke %s, then remote add %s with the --tools and --origins needed", s.Name, s.Name)
	switch {
	case !s.AllowsMode(c.Mode):
		return &tools.Error{Code: CodeOutOfScope, Message: fmt.Sprintf("%s is outside what the remote agent %q may use (%s); %s",
			c.Mode.Key(), s.Name, strings.Join(s.Tools, ", "), widen)}
	case c.Paths:
		return &tools.Error{Code: CodeOutOfScope, Message: fmt.Sprintf("the remote agent %q cannot name files on the user's machine; "+
			"send the files' contents instead: interact upload with file_contents [{name, type, base64}]", s.Name)}
	case c.Target != "" && !s.AllowsPage(c.Target):
		return &tools.Error{Code: CodeOutOfScope, Message: fmt.Sprintf("%s is outside the sites the remote agent %q may open (%s); %s",
			originOf(c.Target), s.Name, s.origins(), widen)}
	case !s.AllowsPage(c.Page):
		return &tools.Error{Code: CodeOutOfScope, Message: fmt.Sprintf("the tab is on %s, outside the sites the remote agent %q may work on (%s); "+
			"navigate it back to one of them, or %s", originOf(c.Page), s.Name, s.origins(), widen)}
	}
	return nil
}

// originOf names a URL's origin for a message (never its path or query).
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "a page that is not a web page"
	}
	if u.Host == "" {
		return u.Scheme + ": page"
	}
	return u.Scheme + "://" + u.Host
}
