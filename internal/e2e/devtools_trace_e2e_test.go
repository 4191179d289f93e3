package e2e

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceReport is the part of analyze performance_trace's answer the
// tests read.
type traceReport struct {
	Navigation bool
	Metrics    struct {
		LCP float64 `json:"lcp_ms"`
	}
	LCP struct {
		MS       float64
		Type     string
		NodeName string `json:"node_name"`
		Element  string
		URL      string
		Phases   struct {
			TTFB        float64  `json:"ttfb_ms"`
			LoadDelay   *float64 `json:"load_delay_ms"`
			LoadTime    *float64 `json:"load_time_ms"`
			RenderDelay float64  `json:"render_delay_ms"`
		}
	}
	CLS struct {
		Score   float64
		Shifted []struct {
			NodeName string `json:"node_name"`
			Element  string
		}
		Culprits []struct {
			Kind, URL, Element string
			NodeName           string `json:"node_name"`
		}
	}
	LongTaskCount  int                       `json:"long_task_count"`
	LongTasks      []struct{ Script string } `json:"long_tasks"`
	RenderBlocking []struct{ URL string }    `json:"render_blocking"`
	ThirdParties   []struct {
		Site         string
		MainThreadMS float64 `json:"main_thread_ms"`
	} `json:"third_parties"`
	Conditions string
	Path       string `json:"trace_path"`
}

func (x *dt) trace(args map[string]any) (traceReport, answer) {
	x.t.Helper()
	m := map[string]any{"timeout_ms": 120000}
	for k, v := range args {
		m[k] = v
	}
	a := x.analyze("performance_trace", m)
	var r traceReport
	decode(x.t, a.Data, &r)
	return r, a
}

// TestE2EPerformanceTrace: on slow.html, a trace of a reload names the
// LCP element (the hero image the server sends late) with the four phases
// that sum to LCP, the late layout shift with the image without a size
// that caused it and the elements it moved, the render-blocking
// stylesheet, the page's long task and the third-party script, in a few
// KiB; the raw trace is under exports/ as gzip JSON with Chrome's events.
// Throttled CPU, then throttled network, load the same page later: the
// test compares the orderings, never a time.
func TestE2EPerformanceTrace(t *testing.T) {
	x := startDevtools(t, "trace-e2e", ChainOptions{})
	x.open("slow.html")
	base, a := x.trace(nil)
	t.Logf("trace answer (%d bytes):\n%s", len(a.Text), a.Text)
	assert.Less(t, len(a.Text), 4096, "a few KiB")
	require.True(t, base.Navigation, a.Text)
	assert.Equal(t, "image", base.LCP.Type)
	assert.Equal(t, "IMG id='hero'", base.LCP.NodeName)
	assert.Contains(t, base.LCP.Element, `id="hero"`)
	assert.Contains(t, base.LCP.URL, "/devtools/image.png?w=900&h=450&ms=600")
	p := base.LCP.Phases
	require.NotNil(t, p.LoadDelay)
	require.NotNil(t, p.LoadTime)
	assert.GreaterOrEqual(t, *p.LoadTime, 600.0, "the server holds the hero 600 ms")
	assert.InDelta(t, base.LCP.MS, p.TTFB+*p.LoadDelay+*p.LoadTime+p.RenderDelay, 0.5, "the phases sum to LCP")
	assert.Greater(t, base.CLS.Score, 0.05)
	require.NotEmpty(t, base.CLS.Culprits, a.Text)
	assert.Equal(t, "unsized_image", base.CLS.Culprits[0].Kind)
	assert.Contains(t, base.CLS.Culprits[0].Element, `id="banner"`)
	var moved []string
	for _, s := range base.CLS.Shifted {
		moved = append(moved, s.NodeName)
	}
	assert.Contains(t, moved, "IMG id='hero'")
	require.NotEmpty(t, base.RenderBlocking)
	assert.Contains(t, base.RenderBlocking[0].URL, "/devtools/style.css")
	require.NotEmpty(t, base.LongTasks)
	assert.Contains(t, base.LongTasks[0].Script, "/pages/devtools/slow.html")
	require.NotEmpty(t, base.ThirdParties)
	assert.Equal(t, "localhost", base.ThirdParties[0].Site)

	f, err := os.Open(base.Path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var raw struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.NewDecoder(zr).Decode(&raw))
	assert.Greater(t, len(raw.TraceEvents), 500, "the raw trace holds Chrome's events")

	// Throttled CPU, then network: the same page loads later.
	x.emulate(map[string]any{"cpu_slowdown": 10})
	cpu, a := x.trace(nil)
	assert.Contains(t, a.Text, "CPU 10× slower")
	x.emulate(map[string]any{"reset": true, "network": "fast_3g"})
	slow, a := x.trace(nil)
	assert.Contains(t, a.Text, "network fast_3g")
	t.Logf("LCP: %g ms unthrottled, %g ms at CPU 10×, %g ms on fast 3G", base.LCP.MS, cpu.LCP.MS, slow.LCP.MS)
	assert.Greater(t, cpu.LCP.MS, base.LCP.MS, "a slower CPU delays LCP")
	assert.Greater(t, slow.LCP.MS, base.LCP.MS, "a slower network delays LCP")
}

// TestE2EPerformanceTraceOfActions: with duration_ms the trace records
// what happens next without reloading (here in the background while the
// agent clicks), and names the interaction as INP.
func TestE2EPerformanceTraceOfActions(t *testing.T) {
	x := startDevtools(t, "trace-actions", ChainOptions{})
	x.open("mock.html")
	started := x.analyze("performance_trace", map[string]any{"duration_ms": 3000, "background": true})
	id := started.Data["correlation_id"].(string)
	x.act("click", map[string]any{"selector": "#reload"})
	done := x.until("command_result", map[string]any{"correlation_id": id}, 60*time.Second, func(a answer) bool { return a.Data["status"] == "complete" })
	var r struct {
		Result struct {
			Navigation bool
			INP        *struct {
				MS           float64
				Type         string
				Interactions int
				NodeName     string `json:"node_name"`
				Element      string
			}
		}
	}
	decode(t, done.Data, &r)
	require.NotNil(t, r.Result.INP, done.Text)
	assert.False(t, r.Result.Navigation, "no reload")
	assert.GreaterOrEqual(t, r.Result.INP.Interactions, 1)
	assert.Contains(t, []string{"pointerdown", "pointerup", "click", "mousedown", "mouseup"}, r.Result.INP.Type)
	assert.Contains(t, done.Text, "no page load in the trace")
}
