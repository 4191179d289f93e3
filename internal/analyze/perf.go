package analyze

import (
	"context"
	"fmt"
	"sort"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

// analyze performance: the navigation timing of the current document, its
// long tasks (recorded by the vitals recorder observe installs in every
// document, so seen from capture's start), the largest and slowest
// requests of the document as captured, and a few renderer metrics.

// PerfReport is analyze performance's answer. Times are milliseconds
// since the navigation started.
type PerfReport struct {
	TabID      int            `json:"tab_id"`
	URL        string         `json:"url"`
	Navigation *NavTiming     `json:"navigation"`
	LongTasks  LongTasks      `json:"long_tasks"`
	Largest    []Resource     `json:"largest_resources"`
	Slowest    []Resource     `json:"slowest_resources"`
	Requests   int            `json:"requests"`
	Bytes      int64          `json:"bytes"` // transferred, as captured
	Metrics    map[string]any `json:"metrics,omitempty"`
	Notes      []string       `json:"notes,omitempty"`
}

// NavTiming is the document's PerformanceNavigationTiming, relative to
// its start.
type NavTiming struct {
	Type             string  `json:"type"` // navigate, reload, back_forward
	Protocol         string  `json:"protocol,omitempty"`
	DNS              float64 `json:"dns_ms"`
	Connect          float64 `json:"connect_ms"`
	TTFB             float64 `json:"ttfb_ms"`
	Response         float64 `json:"response_ms"` // last byte of the document
	DOMInteractive   float64 `json:"dom_interactive_ms"`
	DOMContentLoaded float64 `json:"dom_content_loaded_ms"`
	Load             float64 `json:"load_ms"`
	FCP              float64 `json:"first_contentful_paint_ms,omitempty"`
	TransferSize     int64   `json:"transfer_size"`
	DecodedBodySize  int64   `json:"decoded_body_size"`
}

// LongTasks are main-thread tasks over 50 ms.
type LongTasks struct {
	Recorded bool      `json:"recorded"` // false: the recorder is not in this document
	Hidden   bool      `json:"hidden"`   // the page was hidden for a while: Chrome reports none then
	Count    int       `json:"count"`
	TotalMS  float64   `json:"total_ms"`
	Blocking float64   `json:"blocking_ms"` // the part of each beyond 50 ms, summed
	Longest  []float64 `json:"longest"`     // [start, duration] of the longest, worst first
}

// Resource is one request of the document.
type Resource struct {
	URL        string  `json:"url"`
	Type       string  `json:"type"`
	Bytes      int64   `json:"bytes"`
	DurationMS float64 `json:"duration_ms"`
	Status     int     `json:"status"`
}

const perfProbe = `(opts) => {
  const n = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const hidden = document.visibilityState === 'hidden' || performance.getEntriesByType('visibility-state').some((e) => e.name === 'hidden');
  if (!n) return { url: location.href, nav: null, hidden };
  const d = (a, b) => (a > 0 && b > 0 ? Math.max(0, b - a) : 0);
  return { url: location.href, hidden, nav: {
    type: n.type, protocol: n.nextHopProtocol, dns_ms: d(n.domainLookupStart, n.domainLookupEnd), connect_ms: d(n.connectStart, n.connectEnd),
    ttfb_ms: n.responseStart, response_ms: n.responseEnd, dom_interactive_ms: n.domInteractive,
    dom_content_loaded_ms: n.domContentLoadedEventEnd, load_ms: n.loadEventEnd,
    first_contentful_paint_ms: fcp ? fcp.startTime : 0, transfer_size: n.transferSize, decoded_body_size: n.decodedBodySize } };
}`

var perfFn = script(perfProbe)

// longTasksRead reads the vitals recorder's long tasks (main world).
const longTasksRead = `(() => { const v = window[Symbol.for('gasoline.vitals')]; if (!v || !v.longTasks) return null;
for (const [o, cb] of v.observers) o.takeRecords().forEach(cb);
return {count: v.longTaskCount, tasks: v.longTasks}; })()`

// keptMetrics are the Performance.getMetrics values worth an agent's time.
var keptMetrics = map[string]bool{"Nodes": true, "JSEventListeners": true, "LayoutCount": true, "RecalcStyleCount": true,
	"LayoutDuration": true, "RecalcStyleDuration": true, "ScriptDuration": true, "TaskDuration": true,
	"JSHeapUsedSize": true, "JSHeapTotalSize": true, "Documents": true, "Frames": true}

func (a *Analyzer) performance(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.release()
	var probe struct {
		URL    string     `json:"url"`
		Nav    *NavTiming `json:"nav"`
		Hidden bool       `json:"hidden"`
	}
	if err := p.call(ctx, perfFn(), map[string]any{}, &probe); err != nil {
		return nil, err
	}
	r := PerfReport{TabID: p.tab, URL: probe.URL, Navigation: probe.Nav, Largest: []Resource{}, Slowest: []Resource{}}
	var lt *struct {
		Count int          `json:"count"`
		Tasks [][2]float64 `json:"tasks"`
	}
	if err := p.evalMain(ctx, longTasksRead, &lt); err != nil {
		return nil, err
	}
	switch {
	case lt != nil:
		r.LongTasks = longTasks(lt.Count, lt.Tasks)
		r.LongTasks.Hidden = probe.Hidden
		if probe.Hidden {
			r.Notes = append(r.Notes, "the tab was hidden (a background tab): Chrome reports no long tasks and no paints for hidden pages; bring it to the front and reload to measure them")
		}
	default:
		r.Notes = append(r.Notes, "long tasks not recorded: the recorder was not in this document (reload the page to record them)")
	}
	a.resources(&r)
	if _, err := cdproto.Call(ctx, p.s, performance.Enable, performance.EnableParams{}); err == nil {
		if m, err := cdproto.Call(ctx, p.s, performance.GetMetrics, cdproto.Empty{}); err == nil {
			r.Metrics = map[string]any{}
			for _, x := range m.Metrics {
				if x != nil && keptMetrics[x.Name] {
					r.Metrics[x.Name] = x.Value
				}
			}
		}
	}
	return pageResult(perfText(&r), r, r.page())
}

// longTasks summarizes [start, duration] pairs.
func longTasks(count int, tasks [][2]float64) LongTasks {
	lt := LongTasks{Recorded: true, Count: count, Longest: []float64{}}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i][1] > tasks[j][1] })
	for i, t := range tasks {
		lt.TotalMS += t[1]
		lt.Blocking += max(t[1]-50, 0)
		if i < 5 {
			lt.Longest = append(lt.Longest, round1(t[0]), round1(t[1]))
		}
	}
	lt.TotalMS, lt.Blocking = round1(lt.TotalMS), round1(lt.Blocking)
	return lt
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }

// resources fills the largest and slowest requests of the document.
func (a *Analyzer) resources(r *PerfReport) {
	reqs := a.documentRequests(r.TabID)
	if reqs == nil {
		r.Notes = append(r.Notes, "no requests of this document were captured (capture started after it loaded): reload it to measure them")
	}
	var all []Resource
	for _, q := range reqs {
		all = append(all, Resource{URL: q.URL, Type: q.ResourceType, Bytes: q.EncodedDataLength, DurationMS: q.DurationMs, Status: q.Status})
		r.Bytes += q.EncodedDataLength
	}
	r.Requests = len(all)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Bytes > all[j].Bytes })
	r.Largest = append(r.Largest, all[:min(len(all), 5)]...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].DurationMS > all[j].DurationMS })
	r.Slowest = append(r.Slowest, all[:min(len(all), 5)]...)
}

func perfText(r *PerfReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %s", r.TabID, r.URL)
	if n := r.Navigation; n != nil {
		fmt.Fprintf(&b, "\nnavigation (%s, %s): ttfb %.0fms, dom interactive %.0fms, DOMContentLoaded %.0fms, load %.0fms",
			n.Type, n.Protocol, n.TTFB, n.DOMInteractive, n.DOMContentLoaded, n.Load)
		if n.FCP > 0 {
			fmt.Fprintf(&b, ", FCP %.0fms", n.FCP)
		}
		fmt.Fprintf(&b, "; document %d bytes transferred", n.TransferSize)
	}
	if lt := r.LongTasks; lt.Recorded {
		fmt.Fprintf(&b, "\nlong tasks: %d, %.0fms in all, %.0fms blocking", lt.Count, lt.TotalMS, lt.Blocking)
		for i := 0; i+1 < len(lt.Longest); i += 2 {
			fmt.Fprintf(&b, "\n- %.0fms at %.0fms", lt.Longest[i+1], lt.Longest[i])
		}
	}
	fmt.Fprintf(&b, "\nrequests: %d, %d bytes", r.Requests, r.Bytes)
	for _, x := range r.Largest {
		fmt.Fprintf(&b, "\n- largest: %d bytes %s %s (%.0fms)", x.Bytes, x.Type, x.URL, x.DurationMS)
	}
	for _, x := range r.Slowest {
		fmt.Fprintf(&b, "\n- slowest: %.0fms %s %s", x.DurationMS, x.Type, x.URL)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nnote: %s", n)
	}
	return b.String()
}
