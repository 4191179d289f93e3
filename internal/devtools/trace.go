package devtools

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/export"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tabs"
	"github.com/gasoline-mcp/gasoline/internal/tools"
	"github.com/gasoline-mcp/gasoline/internal/trace"
)

// TraceResult is analyze performance_trace's answer.
type TraceResult struct {
	TabID int `json:"tab_id"`
	*trace.Report
	// Conditions are the emulation in force while it recorded.
	Conditions string `json:"conditions,omitempty"`
	// Path is the raw trace (gzip JSON, redacted) for the DevTools
	// Performance panel; Bytes its size.
	Path  string `json:"trace_path"`
	Bytes int    `json:"trace_bytes"`
}

// traceBound is how long a trace may take beyond what it records.
const traceBound = 2 * time.Minute

// performanceTrace records a trace of a reload (the tab's action queue
// held meanwhile, so no action interleaves) or of duration_ms of what
// happens next (the queue free: the agent acts meanwhile), and answers
// its insights. It is not bounded by timeout_ms: past it the call answers
// still_processing and the trace goes on.
func (m *Manager) performanceTrace(ctx context.Context, c *mcpserver.Call) (any, error) {
	dur := time.Duration(c.Args.DurationMS) * time.Millisecond
	ctx, cancel := context.WithTimeout(ctx, traceBound+dur)
	defer cancel()
	s, err := m.cfg.Tabs.Session(ctx, c.Session.ID(), c.Args.TabID)
	if err != nil {
		return nil, err
	}
	t := m.state(s.TabID())
	if !t.tracing.TryLock() {
		return nil, tools.Errorf("trace_busy", "tab %d is already being traced by another performance_trace; retry when it ends", s.TabID())
	}
	defer t.tracing.Unlock()
	if dur == 0 {
		unlock, err := m.cfg.Lock(ctx, s.TabID())
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	raw, err := trace.Record(ctx, s, trace.Options{Reload: dur == 0, Duration: dur, Target: m.cfg.Tabs.Target(s.TabID())})
	switch {
	case errors.Is(err, trace.ErrBusy):
		return nil, tools.Errorf("trace_busy", "tab %d could not start a trace (%v): another performance_trace, or the Performance panel of DevTools, may be recording it; retry when it ends", s.TabID(), errors.Unwrap(err))
	case err != nil:
		return nil, tabs.ToolError(err)
	}
	evs, err := trace.Parse(raw)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInternal, "the trace Chrome recorded could not be read: %v", err)
	}
	rep := trace.Analyze(evs)
	rep.SetElements(m.describeNodes(ctx, s, rep.Nodes()))
	r := TraceResult{TabID: s.TabID(), Report: rep, Conditions: t.emulation().Text()}
	if r.Path, r.Bytes, err = m.saveTrace(c.Session.ID(), raw); err != nil {
		return nil, err
	}
	var b strings.Builder
	how := "a reload"
	if dur > 0 {
		how = fmt.Sprintf("%s of what happened next (no reload)", dur)
	}
	fmt.Fprintf(&b, "tab %d: trace of %s; conditions: %s\n", r.TabID, how, orNone(r.Conditions))
	b.WriteString(rep.Text())
	fmt.Fprintf(&b, "\nraw trace: %s (%s; DevTools ▸ Performance ▸ Load profile)", r.Path, sizeText(int64(r.Bytes)))
	return mcpserver.Result(b.String(), r)
}

func orNone(s string) string {
	if s == "" {
		return "none emulated"
	}
	return s
}

// saveTrace writes the raw trace under exports/, redacted (its URLs,
// console messages and arguments are outputs like any other) and gzipped.
func (m *Manager) saveTrace(sid string, raw []byte) (string, int, error) {
	clean, err := m.cfg.Egress.JSON(sid, raw)
	if err != nil {
		return "", 0, mcpserver.Blocked("the raw trace", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(clean)
	if err := zw.Close(); err != nil {
		return "", 0, err
	}
	path, err := export.Save(m.cfg.Dir, "trace", ".json.gz", gz.Bytes())
	return path, gz.Len(), err
}

// describeNodes names the report's DOM nodes as the page has them now
// (the trace names them by backend node id): <img id="hero" …>. A node
// that is gone keeps Chrome's own name for it.
func (m *Manager) describeNodes(ctx context.Context, s *cdp.Session, ids []int64) map[int64]string {
	out := map[int64]string{}
	for _, id := range ids {
		n, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: cdproto.BackendNodeID(id)})
		if err != nil || n.Node == nil {
			continue
		}
		out[id] = describe(n.Node)
	}
	return out
}

// describe writes an element as a short start tag with the attributes
// that identify it.
func describe(n *cdproto.Node) string {
	if n.NodeType != 1 { // not an element
		return strings.ToLower(n.NodeName)
	}
	keep := map[string]bool{"id": true, "class": true, "src": true, "alt": true, "href": true, "role": true, "aria-label": true, "name": true, "type": true}
	var b strings.Builder
	b.WriteString("<" + n.LocalName)
	for i := 0; i+1 < len(n.Attributes); i += 2 {
		if k, v := n.Attributes[i], n.Attributes[i+1]; keep[k] {
			fmt.Fprintf(&b, " %s=%q", k, quoteCut(v, 80))
		}
	}
	b.WriteString(">")
	return b.String()
}
