// Package trace is analyze performance_trace: recording a Chrome trace of a
// tab over the Tracing domain (Record) and computing from it the insights
// a developer acts on (Analyze) — LCP with its element and its four
// phases, CLS with the elements that moved and what moved them, INP,
// long tasks with the scripts behind them, render-blocking requests, and
// the heaviest third parties and scripts. The definitions follow the
// DevTools trace engine's (models/trace: PageLoadMetrics, LCPBreakdown,
// CLSCulprits, INPBreakdown, RenderBlocking, ThirdParties), written anew
// in Go; times are milliseconds from the navigation's start.
package trace

import "math"

// Report is the insights of one trace.
type Report struct {
	URL        string  `json:"url,omitempty"`
	Navigation bool    `json:"navigation"` // a page load is in the trace; times count from its start
	SpanMS     float64 `json:"span_ms"`    // from the navigation (or the first event) to the last event
	Metrics    Metrics `json:"metrics"`
	LCP        *LCP    `json:"lcp,omitempty"`
	CLS        *CLS    `json:"cls,omitempty"`
	INP        *INP    `json:"inp,omitempty"`
	// LongTasks are the main thread's tasks over 50 ms, longest first (at
	// most 5); BlockingMS sums each one's part beyond 50 ms.
	LongTasks      []LongTask `json:"long_tasks,omitempty"`
	LongTaskCount  int        `json:"long_task_count"`
	BlockingMS     float64    `json:"total_blocking_ms"`
	RenderBlocking []Request  `json:"render_blocking,omitempty"`
	ThirdParties   []Party    `json:"third_parties,omitempty"`
	Scripts        []Script   `json:"scripts,omitempty"`
	Requests       int        `json:"requests"`
	Notes          []string   `json:"notes,omitempty"`

	navTs float64
}

// Metrics are the page-load marks, in ms from the navigation's start.
type Metrics struct {
	TTFB float64 `json:"ttfb_ms,omitempty"`
	FCP  float64 `json:"fcp_ms,omitempty"`
	LCP  float64 `json:"lcp_ms,omitempty"`
	DCL  float64 `json:"dom_content_loaded_ms,omitempty"`
	Load float64 `json:"load_ms,omitempty"`
}

// LCP is the largest contentful paint of the navigation and its phases.
type LCP struct {
	MS       float64 `json:"ms"`
	Type     string  `json:"type"` // image or text
	Node     int64   `json:"node_id,omitempty"`
	NodeName string  `json:"node_name,omitempty"` // as Chrome names it: IMG id='hero'
	Element  string  `json:"element,omitempty"`   // as the page has it now (Describe)
	URL      string  `json:"url,omitempty"`       // the image's
	Phases   *Phases `json:"phases,omitempty"`
}

// Phases split LCP: time to first byte, then (for an image) the delay
// before its request started and the time it took, then the delay until
// it was painted. They sum to LCP.
type Phases struct {
	TTFB        float64  `json:"ttfb_ms"`
	LoadDelay   *float64 `json:"load_delay_ms,omitempty"`
	LoadTime    *float64 `json:"load_time_ms,omitempty"`
	RenderDelay float64  `json:"render_delay_ms"`
}

// CLS is the worst session window of layout shifts.
type CLS struct {
	Score    float64   `json:"score"`
	Shifts   int       `json:"shifts"`             // in the worst window
	StartMS  float64   `json:"window_start_ms"`    // the worst window's first shift
	Shifted  []Shifted `json:"shifted,omitempty"`  // the elements that moved most in it
	Culprits []Culprit `json:"culprits,omitempty"` // what made them move
}

// Shifted is an element a layout shift moved.
type Shifted struct {
	Node     int64   `json:"node_id"`
	NodeName string  `json:"node_name,omitempty"`
	Element  string  `json:"element,omitempty"`
	Distance float64 `json:"moved_px"`
}

// Culprit is a cause of a layout shift: an image without a size that
// loaded late, or a web font that swapped in.
type Culprit struct {
	Kind     string `json:"kind"` // unsized_image, web_font
	URL      string `json:"url,omitempty"`
	Node     int64  `json:"node_id,omitempty"`
	NodeName string `json:"node_name,omitempty"`
	Element  string `json:"element,omitempty"`
}

// INP is the slowest interaction (a click, tap or key) recorded.
type INP struct {
	MS           float64 `json:"ms"`
	Type         string  `json:"type"` // pointerup, click, keydown …
	Interactions int     `json:"interactions"`
	Node         int64   `json:"node_id,omitempty"`
	NodeName     string  `json:"node_name,omitempty"`
	Element      string  `json:"element,omitempty"`
	InputDelay   float64 `json:"input_delay_ms"`
	Processing   float64 `json:"processing_ms"`
	Presentation float64 `json:"presentation_delay_ms"`
}

// LongTask is a main-thread task over 50 ms and the script that took most
// of it.
type LongTask struct {
	StartMS    float64 `json:"start_ms"`
	DurationMS float64 `json:"duration_ms"`
	Script     string  `json:"script,omitempty"`
	Function   string  `json:"function,omitempty"`
	Activity   string  `json:"activity,omitempty"` // EvaluateScript, FunctionCall, TimerFire …
}

// Request is a request an insight names.
type Request struct {
	URL        string  `json:"url"`
	Type       string  `json:"type,omitempty"`
	StartMS    float64 `json:"start_ms"`
	DurationMS float64 `json:"duration_ms"`
	Bytes      int64   `json:"bytes"`
}

// Party is a third party: every request to a site other than the page's.
type Party struct {
	Site         string  `json:"site"`
	Requests     int     `json:"requests"`
	Bytes        int64   `json:"bytes"`
	MainThreadMS float64 `json:"main_thread_ms"`
}

// Script is a script by the main-thread time it took.
type Script struct {
	URL          string  `json:"url"`
	MainThreadMS float64 `json:"main_thread_ms"`
	Bytes        int64   `json:"bytes"`
	ThirdParty   bool    `json:"third_party,omitempty"`
}

// Analyze computes the report of a parsed trace (Parse).
func Analyze(evs []Event) *Report {
	r := &Report{}
	if len(evs) == 0 {
		r.Notes = append(r.Notes, "the trace holds no events Gasoline reads")
		return r
	}
	nav := navigation(evs)
	r.navTs = evs[0].Ts
	if nav != nil {
		r.Navigation, r.navTs, r.URL = true, nav.ts, nav.url
	}
	r.SpanMS = ms(evs[len(evs)-1].Ts - r.navTs)
	reqs := requests(evs)
	r.Requests = len(reqs)
	main := mainThread(evs, nav)
	if nav != nil {
		r.marks(evs, nav, reqs)
		r.lcp(evs, nav, reqs)
	} else {
		r.Notes = append(r.Notes, "no page load in the trace: LCP, FCP and the load marks need reload (the default)")
	}
	r.cls(evs, main, reqs)
	r.inp(evs, main)
	r.tasks(evs, main)
	r.network(evs, main, reqs, nav)
	return r
}

// ms turns microseconds into milliseconds, to 0.1 ms.
func ms(us float64) float64 { return math.Round(us/100) / 10 }

// at is a trace time in ms from the navigation's start.
func (r *Report) at(ts float64) float64 { return ms(ts - r.navTs) }
