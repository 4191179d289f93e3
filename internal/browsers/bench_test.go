package browsers

import (
	"encoding/json"
	"testing"
)

// BenchmarkRewrite is what routing adds to a CDP call: finding the tab in
// the params and making its id Chrome's again.
func BenchmarkRewrite(b *testing.B) {
	params, _ := json.Marshal(map[string]any{"tab_id": TabID(1, 1967094736), "method": "Runtime.evaluate",
		"params": map[string]any{"expression": "document.querySelectorAll('a').length", "returnByValue": true}})
	b.ReportAllocs()
	for b.Loop() {
		tabs, err := tabsIn(params, outboundFields)
		if err != nil || len(tabs) != 1 {
			b.Fatal(err)
		}
		if _, err := rewrite(params, outboundFields, func(t int) int { _, l := Split(t); return l }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGlobalize is what an event from a browser pays before routing.
func BenchmarkGlobalize(b *testing.B) {
	ev := json.RawMessage(`{"tab_id":1967094736,"url":"http://127.0.0.1:8080/pages/relay/console.html","status":"complete"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Globalize(1, ev); err != nil {
			b.Fatal(err)
		}
	}
}
