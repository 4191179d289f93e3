package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/tidwall/gjson"
)

const consoleMethod = "Runtime.consoleAPICalled"

// BenchmarkIngestConsole is the cost of one console event of a chatty page
// (a log line with an object preview and a three-frame stack), decode to
// ring, into a full ring that evicts on every append.
func BenchmarkIngestConsole(b *testing.B) {
	s, _ := NewStore(nil)
	p := floodParams(nil, 1)
	for i := range 5000 {
		s.Ingest(1, consoleMethod, floodParams(nil, i+1))
	}
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		s.Ingest(1, consoleMethod, p)
	}
}

// The three BenchmarkDecodeConsole* read the same params: the typed decode
// with cdproto's JSON layer (what the other events use), the same with
// encoding/json, and the gjson reads that onConsole does.
func BenchmarkDecodeConsoleCDProto(b *testing.B) {
	p := floodParams(nil, 1)
	b.ReportAllocs()
	for b.Loop() {
		var ev cdpruntime.EventConsoleAPICalled
		if err := jsonv2.Unmarshal(p, &ev, decodeOpts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeConsoleEncodingJSON(b *testing.B) {
	p := floodParams(nil, 1)
	b.ReportAllocs()
	for b.Loop() {
		var ev cdpruntime.EventConsoleAPICalled
		if err := json.Unmarshal(p, &ev); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeConsoleGJSON(b *testing.B) {
	p := floodParams(nil, 1)
	b.ReportAllocs()
	for b.Loop() {
		if !gjson.ValidBytes(p) {
			b.Fatal("invalid")
		}
		var args, stack gjson.Result
		gjson.ParseBytes(p).ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "args":
				args = v
			case "stackTrace":
				stack = v
			}
			return true
		})
		for _, a := range args.Array() {
			_ = readObject(a)
		}
		_ = stack.Get("callFrames.0.url")
	}
}

// BenchmarkIngestNetwork is one fetch: requestWillBeSent, responseReceived
// and loadingFinished merged into one stored request.
func BenchmarkIngestNetwork(b *testing.B) {
	evs := loadEvents(b, "fetch_404.json")
	s, _ := NewStore(nil)
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range evs {
			s.Ingest(1, e.Method, e.Params)
		}
	}
}

// BenchmarkMemoryAfter100k reports the heap a store retains after 100k
// console events into one tab (default limits), measured after GC, next to
// what the store accounts for.
func BenchmarkMemoryAfter100k(b *testing.B) {
	benchMemory(b, func(buf []byte, i int) (string, []byte) {
		return consoleMethod, floodParams(buf, i)
	})
}

// BenchmarkMemoryAfter100kMixed is the same with a mix of kinds: console
// lines, fetches (three events each), WebSocket frames and exceptions.
func BenchmarkMemoryAfter100kMixed(b *testing.B) {
	var mixed []event
	for _, name := range []string{"fetch_404.json", "xhr.json", "websocket.json", "exception.json"} {
		mixed = append(mixed, loadEvents(b, name)...)
	}
	benchMemory(b, func(buf []byte, i int) (string, []byte) {
		if i%2 == 0 {
			return consoleMethod, floodParams(buf, i)
		}
		e := mixed[(i/2)%len(mixed)]
		// A new request id per round, so requests do not merge across rounds.
		id := fmt.Appendf(nil, `"requestId": "r%d.`, i/2/len(mixed))
		return e.Method, append(buf, bytes.ReplaceAll(e.Params, []byte(`"requestId": "41234.`), id)...)
	})
}

func benchMemory(b *testing.B, next func(buf []byte, i int) (string, []byte)) {
	const n = 100_000
	var retained, accounted float64
	var entries int
	var buf []byte
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, _ := NewStore(nil)
		for i := range n {
			var m string
			m, buf = next(buf[:0], i)
			s.Ingest(1, m, buf)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		retained = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		st := s.Stats()
		accounted, entries = 0, 0
		for _, ks := range st.Kinds {
			accounted += float64(ks.Bytes) / (1 << 20)
			entries += ks.Entries
		}
		runtime.KeepAlive(s)
	}
	b.ReportMetric(retained, "retained-MB")
	b.ReportMetric(accounted, "accounted-MB")
	b.ReportMetric(float64(entries), "entries")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
}

// BenchmarkIngestIgnored is the cost of an event the store does not capture.
func BenchmarkIngestIgnored(b *testing.B) {
	s, _ := NewStore(nil)
	p := []byte(`{"frameId":"F","loaderId":"L","name":"networkIdle","timestamp":1}`)
	b.ReportAllocs()
	for b.Loop() {
		s.Ingest(1, "Page.lifecycleEvent", p)
	}
}
