package devtools

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/download"
	"github.com/gasoline-mcp/gasoline/internal/emulate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/route"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func invalid(msg string) error { return tools.Errorf(tools.CodeInvalidArgument, "%s", msg) }

// EmulateResult is interact emulate's answer.
type EmulateResult struct {
	TabID     int              `json:"tab_id"`
	Emulation emulate.Settings `json:"emulation"`
}

func (m *Manager) emulate(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	req := emulateRequest(&c.Args)
	if req.Empty() {
		return nil, invalid("say what to emulate: device, viewport, color_scheme, reduced_motion, locale, timezone, geolocation, network, cpu_slowdown, or reset")
	}
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	t := m.state(s.TabID())
	t.change.Lock()
	defer t.change.Unlock()
	prev := t.emulation()
	next, err := prev.Apply(req)
	if err != nil {
		return nil, invalid(err.Error())
	}
	res, err := s.Sequence(ctx, next.Steps()...)
	if err != nil {
		return nil, tabs.ToolError(err)
	}
	if errs := stepErrors(res); len(errs) > 0 {
		s.Sequence(ctx, prev.Steps()...) // all or nothing: what was in force stays
		return nil, tools.Errorf(tools.CodeInvalidArgument, "Chrome refused the emulation (%v); nothing changed", errs[0])
	}
	t.mu.Lock()
	t.emu, t.applied = next, true
	t.mu.Unlock()
	text := fmt.Sprintf("tab %d emulates: %s", s.TabID(), next.Text())
	if next.Empty() {
		text = fmt.Sprintf("tab %d: no emulation in force", s.TabID())
	}
	return mcpserver.Result(text+" (until the session ends; observe page shows it)", EmulateResult{TabID: s.TabID(), Emulation: next})
}

// RouteResult is interact route's answer.
type RouteResult struct {
	TabID int         `json:"tab_id"`
	Route route.Route `json:"route"`
}

func (m *Manager) route(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	spec := routeSpec(&c.Args)
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	t := m.state(s.TabID())
	t.change.Lock()
	defer t.change.Unlock()
	r, err := t.routes.Add(spec, time.Now().UTC())
	if err != nil {
		return nil, routeError(err)
	}
	if err := m.refreshPatterns(ctx, t, s); err != nil {
		t.routes.Remove(r.ID, "")
		return nil, tabs.ToolError(err)
	}
	return mcpserver.Result(fmt.Sprintf("route %s on tab %d: %s (until unroute or the session ends)", r.ID, s.TabID(), routeText(r.Spec)), RouteResult{TabID: s.TabID(), Route: r})
}

// UnrouteResult is interact unroute's answer.
type UnrouteResult struct {
	TabID   int           `json:"tab_id"`
	Removed []route.Route `json:"removed"`
	Left    int           `json:"left"`
}

func (m *Manager) unroute(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	t := m.state(s.TabID())
	t.change.Lock()
	defer t.change.Unlock()
	pattern := c.Args.URLPattern
	r := UnrouteResult{TabID: s.TabID(), Removed: t.routes.Remove("", pattern)}
	if r.Removed == nil {
		r.Removed = []route.Route{}
	}
	r.Left = t.routes.Len()
	if err := m.refreshPatterns(ctx, t, s); err != nil {
		return nil, tabs.ToolError(err)
	}
	what := "every route"
	if pattern != "" {
		what = fmt.Sprintf("the routes matching %q", pattern)
	}
	return mcpserver.Result(fmt.Sprintf("tab %d: removed %d route(s) (%s); %d left", r.TabID, len(r.Removed), what, r.Left), r)
}

// RoutesResult is observe routes' answer.
type RoutesResult struct {
	TabID  int           `json:"tab_id"`
	Routes []route.Route `json:"routes"`
}

func (m *Manager) routes(_ context.Context, c *mcpserver.Call) (any, error) {
	tab, err := m.cfg.Tabs.Tab(c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	r := RoutesResult{TabID: tab, Routes: []route.Route{}}
	if t := m.lookup(tab); t != nil {
		r.Routes = t.routes.List()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d route(s)", tab, len(r.Routes))
	for _, x := range r.Routes {
		fmt.Fprintf(&b, "\n%s %s: %d hit(s)", x.ID, routeText(x.Spec), x.Hits)
		for _, h := range x.Recent {
			fmt.Fprintf(&b, "\n  %s %s", h.Method, h.URL)
		}
	}
	return mcpserver.Result(b.String(), r)
}

// routeText says what a route does: `GET */api/* → answer 200 with 27
// bytes: {"items":[]}`.
func routeText(s route.Spec) string {
	var b strings.Builder
	if s.Method != "" {
		b.WriteString(s.Method + " ")
	}
	fmt.Fprintf(&b, "%q", s.Pattern)
	if s.Type != "" {
		fmt.Fprintf(&b, " (%s)", strings.ToLower(s.Type))
	}
	if s.DelayMS > 0 {
		fmt.Fprintf(&b, " → wait %d ms", s.DelayMS)
	}
	switch {
	case s.Block:
		b.WriteString(" → block")
	case s.Fulfills():
		status, hs, body := s.Response(nil)
		fmt.Fprintf(&b, " → answer %d", status)
		for _, h := range hs {
			fmt.Fprintf(&b, ", %s: %s", h.Name, h.Value)
		}
		fmt.Fprintf(&b, " with %d bytes", len(body))
		if len(body) > 0 {
			fmt.Fprintf(&b, ": %s", quoteCut(string(body), 300))
		}
	default:
		b.WriteString(" → go on")
	}
	return b.String()
}

func quoteCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes more)", s[:n], len(s)-n)
}

// DownloadsResult is observe downloads' answer.
type DownloadsResult struct {
	Dir       string            `json:"dir"`
	Downloads []download.Record `json:"downloads"`
}

func (m *Manager) listDownloads(_ context.Context, c *mcpserver.Call) (any, error) {
	r := DownloadsResult{Dir: m.downloads.Dir(), Downloads: m.downloads.List(c.Session.ID(), cmp.Or(c.Args.Limit, 100))}
	if r.Downloads == nil {
		r.Downloads = []download.Record{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d download(s) of this session, saved under %s (never the Downloads folder)", len(r.Downloads), r.Dir)
	for _, d := range r.Downloads {
		fmt.Fprintf(&b, "\n%s tab %d %s %q", d.ID, d.Tab, d.State, d.Name)
		if d.Type != "" {
			fmt.Fprintf(&b, " %s", d.Type)
		}
		if d.Size > 0 {
			fmt.Fprintf(&b, ", %s", sizeText(d.Size))
		}
		if d.SHA256 != "" {
			fmt.Fprintf(&b, ", sha256 %s", d.SHA256)
		}
		fmt.Fprintf(&b, " from %s", d.URL)
		if d.Path != "" {
			fmt.Fprintf(&b, "\n  saved as %s", d.Path)
		}
		if d.Note != "" {
			fmt.Fprintf(&b, "\n  %s", d.Note)
		}
		if d.Content != "" {
			fmt.Fprintf(&b, "\n  content:\n%s", indent(d.Content))
		}
	}
	return mcpserver.Result(b.String(), r)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// emulateRequest is interact emulate's request, from the call's typed
// arguments.
func emulateRequest(a *tools.Args) emulate.Request {
	return emulate.Request{Device: a.Device, Viewport: (*emulate.Viewport)(a.Viewport), ColorScheme: a.ColorScheme,
		ReducedMotion: a.ReducedMotion, Locale: a.Locale, Timezone: a.Timezone, Geolocation: (*emulate.Geolocation)(a.Geolocation),
		Network: a.Network, CPUSlowdown: a.CPUSlowdown, Reset: a.Reset}
}

// routeSpec is interact route's route, from the call's typed arguments.
func routeSpec(a *tools.Args) route.Spec {
	return route.Spec{Pattern: a.URLPattern, Method: a.Method, Type: a.Type, Block: a.Block, Status: a.StatusCode,
		Headers: a.Headers, Body: a.Body, DelayMS: a.DelayMS}
}
