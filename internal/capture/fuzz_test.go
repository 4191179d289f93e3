package capture

import (
	"testing"
)

// fuzzMethods are the methods the fuzzer picks from: every captured one and
// one that is ignored.
var fuzzMethods = []string{
	"Runtime.consoleAPICalled", "Runtime.exceptionThrown",
	"Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed",
	"Network.webSocketCreated", "Network.webSocketFrameSent", "Network.webSocketFrameReceived",
	"Network.webSocketFrameError", "Network.webSocketClosed",
	"Page.javascriptDialogOpening", "Page.javascriptDialogClosed", "Page.frameNavigated",
	"Page.domContentEventFired", "Page.loadEventFired", "Page.lifecycleEvent",
}

func FuzzIngest(f *testing.F) {
	index := make(map[string]uint8, len(fuzzMethods))
	for i, m := range fuzzMethods {
		index[m] = uint8(i)
	}
	for _, name := range []string{"console.json", "exception.json", "fetch_404.json", "xhr.json", "fetch_failed.json",
		"redirect.json", "websocket.json", "dialog.json", "navigation.json"} {
		for _, e := range loadEvents(f, name) {
			if i, ok := index[e.Method]; ok {
				f.Add(i, []byte(e.Params))
			}
		}
	}
	f.Add(uint8(0), []byte(`{"type":"log","args":[{"type":"string","value":"%s%d%i%f%o%O%c%%%"}]}`))
	f.Add(uint8(0), []byte(`{"type":"log","args":[{"type":"object","preview":{"subtype":"map","overflow":true,"entries":[{"key":{},"value":7}]}}]}`))
	f.Add(uint8(1), []byte(`{"timestamp":1e308,"exceptionDetails":{"exceptionId":1,"text":"","lineNumber":-5,"columnNumber":0,"exception":{"type":"number","value":1}}}`))
	f.Add(uint8(7), []byte(`{"requestId":"w","timestamp":-1,"response":{"opcode":1,"mask":false,"payloadData":"\ud800"}}`))

	lim := Limits{MaxEntries: 3, MaxBytes: 4096}
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		s := newTestStore(t, &Options{
			Console: lim, Exceptions: lim, Network: lim, WebSockets: lim, Dialogs: lim, Navigations: lim,
			MaxOpenRequests: 2, MaxOpenSockets: 2, MaxErrorGroups: 2,
			MaxTextBytes: 256, MaxURLBytes: 64, MaxPayloadBytes: 32, MaxStackFrames: 2,
		})
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		for range 5 { // repeated, so merging and eviction paths run too
			s.Ingest(1, method, params)
		}
		st := s.Stats()
		for k, ks := range st.Kinds {
			if ks.Entries > lim.MaxEntries || ks.Bytes > lim.MaxBytes {
				t.Fatalf("%s over its limits: %+v", k, ks)
			}
		}
		s.Timeline(1, 0, 0)
		s.Errors(1)
		s.Pending(1)
		s.OpenDialogs(1)
		s.Logs(1, LogQuery{Text: "a", Level: "error"})
		s.Network(1, NetworkQuery{FailedOnly: true, URLContains: "x"})
		s.WebSockets(1, WebSocketQuery{Direction: "sent"})
	})
}
