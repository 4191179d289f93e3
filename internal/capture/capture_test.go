package capture

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	appJS = "http://127.0.0.1:8765/app.js"
	tabID = 7
	// sampleLoader is the loaderId of the samples' document.
	sampleLoader = "A1B2C3D4E5F60718293A4B5C6D7E8F90"
)

// at is a wall time given as seconds since the epoch, as the samples use.
func at(sec float64) time.Time { return time.UnixMicro(int64(sec * 1e6)) }

func TestConsoleSamples(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "console.json")
	type want struct {
		level, typ, text string
		time             time.Time
		url              string
		line, col        int
		stackLen         int
	}
	tests := []want{
		{"log", "log", `page loaded {user: "ada", items: 3, tags: Array(2)} 42`, at(1730000000.10025), appJS, 4, 9, 0},
		{"warning", "warning", "deprecated API used", at(1730000000.2005), appJS, 21, 11, 2},
		{"error", "error", "failed to load /api/user: 404", at(1730000000.30075), appJS, 41, 13, 2},
		{"error", "error", "Error: boom\n    at http://127.0.0.1:8765/app.js:51:17", at(1730000000.4), appJS, 51, 17, 1},
		{"error", "error", "failed to load /api/user: 404", at(1730000000.50075), appJS, 41, 13, 1},
		{"info", "info", "undefined null true NaN 12n function handler() {} [1, 2, 3]", at(1730000000.6), "", 0, 0, 0},
		{"debug", "debug", "styled text", at(1730000000.7), "", 0, 0, 0},
	}
	p := s.Logs(tabID, LogQuery{})
	require.Len(t, p.Entries, len(tests))
	for i, w := range tests {
		t.Run(w.text, func(t *testing.T) {
			e := p.Entries[i]
			assert.Equal(t, uint64(i+1), e.Seq, "seq")
			assert.Equal(t, w.level, e.Level, "level")
			assert.Equal(t, w.typ, e.Type, "type")
			assert.Equal(t, w.text, e.Text, "text")
			assert.True(t, w.time.Equal(e.Time), "time: got %v, want %v", e.Time, w.time)
			assert.Equal(t, w.url, e.URL, "url")
			assert.Equal(t, w.line, e.Line, "line")
			assert.Equal(t, w.col, e.Column, "column")
			assert.Len(t, e.Stack, w.stackLen, "stack")
			assert.False(t, e.Truncated, "truncated")
		})
	}
	assert.Equal(t, []Frame{
		{Function: "legacy", URL: appJS, Line: 21, Column: 11},
		{URL: appJS, Line: 26, Column: 3},
	}, p.Entries[1].Stack)
}

func TestExceptionSamples(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "exception.json")
	p := s.Exceptions(tabID, 0, 0)
	require.Len(t, p.Entries, 4)
	tests := []struct {
		message   string
		url       string
		line, col int
		stackLen  int
	}{
		{"Uncaught TypeError: Cannot read properties of undefined (reading 'name')", appJS, 12, 11, 3},
		{"Uncaught (in promise) Error: request rejected", appJS, 31, 7, 1},
		{"Uncaught plain string thrown", "http://127.0.0.1:8765/inline.html", 1, 1, 0},
		{"Uncaught TypeError: Cannot read properties of undefined (reading 'name')", appJS, 12, 11, 1},
	}
	for i, w := range tests {
		e := p.Entries[i]
		assert.Equal(t, w.message, e.Message, "exception %d message", i)
		assert.Equal(t, w.url, e.URL, "exception %d url", i)
		assert.Equal(t, w.line, e.Line, "exception %d line", i)
		assert.Equal(t, w.col, e.Column, "exception %d column", i)
		assert.Len(t, e.Stack, w.stackLen, "exception %d stack", i)
	}
	assert.Equal(t, []Frame{
		{Function: "explode", URL: appJS, Line: 12, Column: 11},
		{Function: "onClick", URL: appJS, Line: 16, Column: 4},
		{URL: appJS, Line: 19, Column: 2},
	}, p.Entries[0].Stack)
	assert.True(t, at(1730000001.000125).Equal(p.Entries[0].Time), "time %v", p.Entries[0].Time)
}

func TestNetworkSamples(t *testing.T) {
	tests := []struct {
		file string
		want []Request
	}{
		{"fetch_404.json", []Request{{
			ID: "41234.56", Method: "GET", URL: "http://127.0.0.1:8765/missing.json", ResourceType: "Fetch",
			Status: 404, StatusText: "Not Found", MimeType: "text/plain", Start: at(1730000004.45),
			TTFBMs: 20.8, DurationMs: 25, EncodedDataLength: 177,
			InitiatorType: "script", InitiatorURL: appJS + ":61",
		}}},
		{"xhr.json", []Request{{
			ID: "41234.57", Method: "POST", URL: "http://127.0.0.1:8765/api/items?page=2", ResourceType: "XHR",
			Status: 201, StatusText: "Created", MimeType: "application/json", Start: at(1730000004.95),
			TTFBMs: 41.25, DurationMs: 50, EncodedDataLength: 170,
			InitiatorType: "script", InitiatorURL: appJS + ":71",
		}}},
		{"fetch_failed.json", []Request{{
			ID: "41234.58", Method: "GET", URL: "http://127.0.0.1:1/unreachable", ResourceType: "Fetch",
			Start: at(1730000005.95), DurationMs: 4, Failed: true, ErrorText: "net::ERR_CONNECTION_REFUSED",
			InitiatorType: "script", InitiatorURL: appJS + ":81",
		}, {
			ID: "41234.59", Method: "GET", URL: "http://127.0.0.1:9999/cross-origin", ResourceType: "Fetch",
			Start: at(1730000006.05), DurationMs: 20, Failed: true, ErrorText: "net::ERR_FAILED",
			CORSError: "MissingAllowOriginHeader", InitiatorType: "script",
		}}},
		{"redirect.json", []Request{{
			ID: "41234.61", Method: "GET", URL: "http://127.0.0.1:8765/old", ResourceType: "Fetch",
			Status: 302, StatusText: "Found", Start: at(1730000006.95), TTFBMs: 8.5, DurationMs: 10,
			EncodedDataLength: 96, InitiatorType: "script",
		}, {
			ID: "41234.61", Method: "GET", URL: "http://127.0.0.1:8765/new", ResourceType: "Fetch",
			Status: 200, StatusText: "OK", MimeType: "application/json", Start: at(1730000006.96),
			TTFBMs: 7, DurationMs: 15, EncodedDataLength: 150, InitiatorType: "script",
		}}},
		{"navigation.json", []Request{{
			ID: "A1B2C3D4E5F60718293A4B5C6D7E8F90", Method: "GET", URL: "http://127.0.0.1:8765/",
			ResourceType: "Document", Status: 200, StatusText: "OK", MimeType: "text/html",
			Start: at(1730000000.05), TTFBMs: 19.2, DurationMs: 35, EncodedDataLength: 642, InitiatorType: "other",
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := newTestStore(t, nil)
			ingestFiles(t, s, tt.file)
			got := s.Network(tabID, NetworkQuery{}).Entries
			require.Len(t, got, len(tt.want))
			for i := range got {
				tt.want[i].Seq, tt.want[i].Order = got[i].Seq, got[i].Order
				assert.NotZero(t, got[i].sent, "send count")
				tt.want[i].LoaderID, tt.want[i].sent = sampleLoader, got[i].sent
				assert.True(t, tt.want[i].Start.Equal(got[i].Start), "start: got %v, want %v", got[i].Start, tt.want[i].Start)
				tt.want[i].Start = got[i].Start
			}
			assert.Equal(t, tt.want, got)
			assert.Empty(t, s.Pending(tabID), "nothing left in flight")
			st, _ := s.TabStats(tabID)
			assert.Zero(t, st.Malformed, "malformed")
		})
	}
}

func TestWebSocketSample(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "websocket.json")
	const url = "ws://127.0.0.1:8766/echo"
	want := []WebSocketEvent{
		{Event: "created"},
		{Event: "frame", Dir: "sent", Opcode: 1, Payload: "hello echo", PayloadLen: 10},
		{Event: "frame", Dir: "received", Opcode: 1, Payload: "hello echo", PayloadLen: 10},
		{Event: "frame", Dir: "sent", Opcode: 2, Payload: "AQIDBA==", PayloadLen: 4, Binary: true},
		{Event: "frame", Dir: "received", Opcode: 2, Payload: "AQIDBA==", PayloadLen: 4, Binary: true},
		{Event: "error", Error: "Could not decode a text frame as UTF-8."},
		{Event: "closed"},
	}
	got := s.WebSockets(tabID, WebSocketQuery{}).Entries
	require.Len(t, got, len(want))
	for i := range got {
		want[i].Seq, want[i].Order, want[i].Time = got[i].Seq, got[i].Order, got[i].Time
		want[i].SocketID, want[i].URL = "41234.70", url
	}
	assert.Equal(t, want, got)
	// Frame times come from CDP's monotonic clock; with no request seen
	// yet there is no offset to wall time, so they fall back to the clock.
	assert.Equal(t, fixedNow, got[1].Time)
}

func TestDialogSample(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "dialog.json")
	const url = "http://127.0.0.1:8765/dialog.html"
	got := s.Dialogs(tabID, 0, 0).Entries
	require.Len(t, got, 2)
	assert.Equal(t, Dialog{Seq: 1, Order: 1, Time: fixedNow, Type: "alert", Message: "Hello from alert", URL: url,
		Handled: true, Accepted: true, Closed: fixedNow}, got[0])
	assert.Equal(t, Dialog{Seq: 2, Order: 2, Time: fixedNow, Type: "confirm", Message: "Delete everything?", URL: url,
		Handled: true, Accepted: false, Closed: fixedNow}, got[1])
	assert.Equal(t, []Dialog{{Time: fixedNow, Type: "prompt", Message: "Your name?", URL: url, DefaultPrompt: "anon"}},
		s.OpenDialogs(tabID), "the prompt is still open")

	s.Ingest(tabID, "Page.javascriptDialogClosed", []byte(`{"frameId":"6C1F2E3D4B5A69788796A5B4C3D2E1F0","result":true,"userInput":"Ada"}`))
	assert.Empty(t, s.OpenDialogs(tabID))
	p := s.Dialogs(tabID, 2, 0)
	require.Len(t, p.Entries, 1)
	assert.Equal(t, "Ada", p.Entries[0].UserInput)
	assert.True(t, p.Entries[0].Accepted)
}

func TestNavigationSample(t *testing.T) {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "navigation.json")
	const url = "http://127.0.0.1:8765/"
	got := s.Navigations(tabID, 0, 0).Entries
	want := []Navigation{
		{Seq: 1, Order: 1, Time: fixedNow, Event: "navigated", URL: url, Type: "Navigation"},
		{Seq: 2, Order: 3, Time: at(1730000000.2), Event: "domcontentloaded", URL: url, SinceStartMs: 150},
		{Seq: 3, Order: 4, Time: at(1730000000.35), Event: "load", URL: url, SinceStartMs: 300},
	}
	require.Len(t, got, len(want), "the child frame's navigation is not recorded")
	for i := range got {
		assert.True(t, want[i].Time.Equal(got[i].Time), "time %d: got %v, want %v", i, got[i].Time, want[i].Time)
		want[i].Time = got[i].Time
	}
	assert.Equal(t, want, got)
}
