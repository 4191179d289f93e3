package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// slow-page.json.gz is a reload of testdata/pages/devtools/slow.html
// recorded by Chromium 156 (Record's categories), cut down to the events
// Parse keeps: the insights must read what Chrome writes.
func TestAnalyzeRecordedTrace(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/trace/slow-page.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	r := Analyze(evs)
	if !r.Navigation || r.URL != "http://127.0.0.1:8080/pages/devtools/slow.html" {
		t.Fatalf("navigation %v %q", r.Navigation, r.URL)
	}
	l := r.LCP
	if l == nil || l.MS != 901.6 || l.Type != "image" || l.NodeName != "IMG id='hero'" || l.Node != 27 ||
		l.URL != "http://127.0.0.1:8080/devtools/image.png?w=900&h=450&ms=600" {
		t.Fatalf("LCP %+v", l)
	}
	p := l.Phases
	if p.TTFB != 5.9 || *p.LoadDelay != 28.2 || *p.LoadTime != 853.3 || p.RenderDelay != 14.2 {
		t.Errorf("phases %+v %v %v", p, *p.LoadDelay, *p.LoadTime)
	}
	if sum := p.TTFB + *p.LoadDelay + *p.LoadTime + p.RenderDelay; sum < l.MS-0.3 || sum > l.MS+0.3 {
		t.Errorf("phases sum to %g, LCP %g", sum, l.MS)
	}
	if m := r.Metrics; m.FCP != 400.7 || m.DCL != 321.2 || m.Load != 1564.2 || m.TTFB != 5.9 {
		t.Errorf("metrics %+v", m)
	}
	c := r.CLS
	if c == nil || c.Score != 0.1519 || c.Shifts != 1 || len(c.Culprits) != 1 || c.Culprits[0].Kind != "unsized_image" ||
		c.Culprits[0].NodeName != "IMG id='banner'" || c.Shifted[0].NodeName != "IMG id='hero'" || c.Shifted[0].Distance != 126 {
		t.Errorf("CLS %+v", c)
	}
	if r.LongTaskCount != 2 || r.LongTasks[0].DurationMS != 128.2 || r.LongTasks[0].Activity != "EvaluateScript" ||
		r.LongTasks[0].Script != "http://127.0.0.1:8080/pages/devtools/slow.html" || r.BlockingMS != 89.5 {
		t.Errorf("long tasks %d %+v blocking %g", r.LongTaskCount, r.LongTasks, r.BlockingMS)
	}
	if len(r.RenderBlocking) != 1 || !strings.Contains(r.RenderBlocking[0].URL, "style.css") || r.RenderBlocking[0].DurationMS != 153.8 {
		t.Errorf("render blocking %+v", r.RenderBlocking)
	}
	if len(r.ThirdParties) != 1 || r.ThirdParties[0].Site != "localhost" || r.ThirdParties[0].MainThreadMS != 28 || r.ThirdParties[0].Requests != 1 {
		t.Errorf("third parties %+v", r.ThirdParties)
	}
	if len(r.Scripts) != 2 || !r.Scripts[1].ThirdParty {
		t.Errorf("scripts %+v", r.Scripts)
	}
	if nodes := r.Nodes(); fmt.Sprint(nodes) != "[27 29 26]" {
		t.Errorf("nodes %v", nodes)
	}
	r.SetElements(map[int64]string{27: `<img id="hero">`})
	text := r.Text()
	for _, want := range []string{"LCP 901.6 ms: image <img id=\"hero\">", "load delay 28.2 ms", "cause: image without width and height IMG id='banner'", "INP: no interaction recorded"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if len(text) > 3000 {
		t.Errorf("text is %d bytes", len(text))
	}
}

// ev builds one event.
func ev(name string, ts, dur float64, args string) map[string]any {
	e := map[string]any{"name": name, "ph": "X", "ts": ts, "dur": dur, "pid": 1, "tid": 1, "cat": "devtools.timeline"}
	if args != "" {
		var a any
		json.Unmarshal([]byte(args), &a)
		e["args"] = a
	}
	return e
}

func build(t *testing.T, events ...map[string]any) *Report {
	t.Helper()
	events = append([]map[string]any{
		{"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": map[string]any{"name": "CrRendererMain"}},
	}, events...)
	raw, _ := json.Marshal(map[string]any{"metadata": map[string]any{"x": 1}, "traceEvents": events})
	evs, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return Analyze(evs)
}

const navArgs = `{"frame":"F","data":{"documentLoaderURL":"https://shop.example/","isLoadingMainFrame":true,"isOutermostMainFrame":true,"navigationId":"N"}}`

func TestLCPTextAndCandidates(t *testing.T) {
	r := build(t,
		ev("navigationStart", 1000, 0, navArgs),
		ev("ResourceSendRequest", 1100, 0, `{"data":{"requestId":"N","url":"https://shop.example/","resourceType":"Document"}}`),
		ev("ResourceReceiveResponse", 1200, 0, `{"data":{"requestId":"N","statusCode":200,"timing":{"requestTime":0.0011,"receiveHeadersEnd":0.4}}}`),
		ev("largestContentfulPaint::Candidate", 300000, 0, `{"data":{"candidateIndex":2,"navigationId":"N","nodeId":5,"nodeName":"H1","type":"text","isOutermostMainFrame":true}}`),
		ev("largestContentfulPaint::Candidate", 200000, 0, `{"data":{"candidateIndex":1,"navigationId":"N","nodeId":4,"nodeName":"P","type":"text","isOutermostMainFrame":true}}`),
		ev("largestContentfulPaint::Candidate", 900000, 0, `{"data":{"candidateIndex":9,"navigationId":"OTHER","nodeId":6,"type":"image"}}`),
	)
	l := r.LCP
	if l == nil || l.NodeName != "H1" || l.MS != 299 {
		t.Fatalf("the highest candidate of this navigation: %+v", l)
	}
	if l.Phases.LoadDelay != nil || l.Phases.TTFB != 0.5 || l.Phases.RenderDelay != 298.5 {
		t.Errorf("a text LCP has TTFB and render delay only: %+v", l.Phases)
	}
}

func TestCLSWindows(t *testing.T) {
	shift := func(ts float64, score float64) map[string]any {
		return ev("LayoutShift", ts, 0, fmt.Sprintf(`{"data":{"weighted_score_delta":%g,"had_recent_input":false,"is_main_frame":true,"impacted_nodes":[{"node_id":3,"debug_name":"DIV","old_rect":[0,0,10,10],"new_rect":[0,40,10,10]}]}}`, score))
	}
	r := build(t, ev("navigationStart", 0, 0, navArgs),
		shift(1e6, 0.1), shift(1.5e6, 0.1), // window 1: 0.2
		shift(3e6, 0.05), shift(3.9e6, 0.05), shift(4.8e6, 0.05), shift(5.7e6, 0.05), shift(6.6e6, 0.05), shift(7.5e6, 0.05), shift(8.4e6, 0.05), // 5 s cap: 0.3 then 0.1
		ev("LayoutShift", 9e6, 0, `{"data":{"weighted_score_delta":5,"had_recent_input":true}}`), // after input: not counted
	)
	if r.CLS == nil || r.CLS.Score != 0.3 || r.CLS.Shifts != 6 || r.CLS.StartMS != 3000 {
		t.Fatalf("CLS %+v", r.CLS)
	}
	if r.CLS.Shifted[0].Distance != 40 {
		t.Errorf("moved %+v", r.CLS.Shifted)
	}
}

func TestINPAndLongTasks(t *testing.T) {
	timing := func(ts float64, id int, dur float64, typ string) map[string]any {
		e := ev("EventTiming", ts, 0, fmt.Sprintf(`{"data":{"interactionId":%d,"duration":%g,"type":%q,"nodeName":"BUTTON","timeStamp":100,"processingStart":130,"processingEnd":180}}`, id, dur, typ))
		e["ph"] = "b"
		return e
	}
	r := build(t,
		timing(10, 1, 40, "pointerup"), timing(11, 1, 96, "click"), timing(20, 2, 64, "keydown"), timing(30, 0, 500, "mousemove"),
		ev("RunTask", 1e5, 120e3, ""), ev("FunctionCall", 1.1e5, 100e3, `{"data":{"url":"https://cdn.other.example/lib.js","functionName":"heavy"}}`),
		ev("FunctionCall", 1.2e5, 50e3, `{"data":{"url":"https://cdn.other.example/inner.js"}}`),
		ev("RunTask", 3e5, 40e3, ""),
	)
	if r.INP == nil || r.INP.MS != 96 || r.INP.Type != "click" || r.INP.Interactions != 2 || r.INP.InputDelay != 30 || r.INP.Processing != 50 || r.INP.Presentation != 16 {
		t.Errorf("INP %+v", r.INP)
	}
	if r.LongTaskCount != 1 || r.LongTasks[0].Function != "heavy" || r.BlockingMS != 70 {
		t.Errorf("long tasks %+v", r.LongTasks)
	}
	if len(r.Scripts) != 1 || r.Scripts[0].URL != "https://cdn.other.example/lib.js" || r.Scripts[0].MainThreadMS != 100 {
		t.Errorf("an inner call is counted in its outer script: %+v", r.Scripts)
	}
	if r.Navigation || len(r.Notes) == 0 {
		t.Errorf("no navigation: %+v", r)
	}
}

func TestParseForms(t *testing.T) {
	arr := `[{"name":"navigationStart","ph":"R","ts":5,"pid":1,"tid":1,"args":{"frame":"F","data":{"documentLoaderURL":"https://a/","isLoadingMainFrame":true,"navigationId":"N"}}},{"name":"Skipped","ts":1}]`
	evs, err := Parse([]byte(arr))
	if err != nil || len(evs) != 1 {
		t.Fatalf("bare array: %d %v", len(evs), err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(`{"traceEvents":` + arr + `}`))
	zw.Close()
	if evs, err := Parse(gz.Bytes()); err != nil || len(evs) != 1 {
		t.Errorf("gzip: %d %v", len(evs), err)
	}
	for _, bad := range []string{``, `{}`, `{"traceEvents":3}`, `"x"`, `{"traceEvents":[{"ts":"late"}]}`, "\x1f\x8bnot gzip"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestBusyError(t *testing.T) {
	chrome := errors.New("Tracing has already been started (possibly in another tab).")
	err := fmt.Errorf("wrapped: %w", &busyError{chrome})
	if !errors.Is(err, ErrBusy) || !errors.Is(err, chrome) || !strings.Contains(err.Error(), "already been started") {
		t.Errorf("%v", err)
	}
}

// FuzzParse: a trace is untrusted bytes (a page writes into it); Parse
// and Analyze never panic on any.
func FuzzParse(f *testing.F) {
	raw, _ := os.ReadFile("../../testdata/trace/slow-page.json.gz")
	f.Add(raw)
	f.Add([]byte(`{"traceEvents":[{"name":"LayoutShift","args":{"data":{"impacted_nodes":[{"old_rect":[1]}]}}}]}`))
	f.Add([]byte(`[{"name":"largestContentfulPaint::Candidate","args":{"data":null}}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := Parse(b)
		if err != nil {
			return
		}
		r := Analyze(evs)
		_ = r.Text()
	})
}
