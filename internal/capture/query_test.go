package capture

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsoleAgreesWithCDProto checks the gjson console path against
// cdproto's typed decode of the same params.
func TestConsoleAgreesWithCDProto(t *testing.T) {
	for i, e := range loadEvents(t, "console.json") {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var ev runtime.EventConsoleAPICalled
			require.NoError(t, jsonv2.Unmarshal(e.Params, &ev))
			s := newTestStore(t, nil)
			s.Ingest(tabID, e.Method, e.Params)
			got := s.Logs(tabID, LogQuery{}).Entries
			require.Len(t, got, 1)
			assert.Equal(t, string(ev.Type), got[0].Type, "type")
			assert.Equal(t, int64(float64(ev.Timestamp)*1000), got[0].Time.UnixMicro(), "time")
			if st := ev.StackTrace; st != nil {
				assert.Equal(t, st.CallFrames[0].URL, got[0].URL, "url")
				assert.Equal(t, int(st.CallFrames[0].LineNumber)+1, got[0].Line, "line")
			}
			styled := strings.Contains(string(ev.Args[0].Value), "%c") // its argument is CSS, not text
			for _, a := range ev.Args[1:] {
				if a.Type == runtime.RemoteObjectTypeString && !styled {
					assert.Contains(t, got[0].Text, gjsonString(t, a.Value), "string argument")
				}
			}
		})
	}
}

func gjsonString(t *testing.T, v []byte) string {
	var s string
	require.NoError(t, json.Unmarshal(v, &s))
	return s
}

func allSamples(t *testing.T) *Store {
	s := newTestStore(t, nil)
	ingestFiles(t, s, "navigation.json", "console.json", "exception.json", "fetch_404.json", "xhr.json",
		"fetch_failed.json", "redirect.json", "websocket.json", "dialog.json")
	return s
}

func TestErrorsGrouped(t *testing.T) {
	s := allSamples(t)
	type group struct {
		kind, message       string
		count               int
		firstSeen, lastSeen float64
	}
	want := []group{
		{KindConsole, "failed to load /api/user: 404", 2, 1730000000.30075, 1730000000.50075},
		{KindConsole, "Error: boom", 1, 1730000000.4, 1730000000.4},
		{KindException, "Uncaught TypeError: Cannot read properties of undefined (reading 'name')", 2, 1730000001.000125, 1730000004.0005},
		{KindException, "Uncaught (in promise) Error: request rejected", 1, 1730000002.0005, 1730000002.0005},
		{KindException, "Uncaught plain string thrown", 1, 1730000003, 1730000003},
	}
	got := s.Errors(tabID)
	require.Len(t, got, len(want))
	for i, w := range want {
		g := got[i]
		assert.Equal(t, w.kind, g.Kind, "group %d kind", i)
		assert.Equal(t, w.message, g.Message, "group %d message", i)
		assert.Equal(t, w.count, g.Count, "group %d count", i)
		assert.True(t, at(w.firstSeen).Equal(g.FirstSeen), "group %d first seen %v", i, g.FirstSeen)
		assert.True(t, at(w.lastSeen).Equal(g.LastSeen), "group %d last seen %v", i, g.LastSeen)
	}
	assert.Len(t, got[2].Stack, 1, "stack of the latest occurrence")
}

func TestErrorGroupsOutliveEviction(t *testing.T) {
	s := newTestStore(t, &Options{Console: Limits{MaxEntries: 10}, MaxErrorGroups: 2})
	for i := range 50 {
		typ := "log"
		if i%10 == 0 {
			typ = "error"
		}
		s.Ingest(tabID, "Runtime.consoleAPICalled", consoleParams(typ, fmt.Sprintf("msg %d", i%20)))
	}
	got := s.Errors(tabID)
	require.Len(t, got, 2, "MaxErrorGroups")
	assert.Equal(t, "msg 0", got[0].Message)
	assert.Equal(t, 3, got[0].Count, "i = 0, 20, 40")
	assert.Equal(t, "msg 10", got[1].Message)
	assert.Equal(t, 2, got[1].Count, "i = 10, 30")
}

// consoleParams builds Runtime.consoleAPICalled params in Chrome's shape.
func consoleParams(typ, text string) []byte {
	b, _ := json.Marshal(map[string]any{
		"type":               typ,
		"args":               []any{map[string]any{"type": "string", "value": text}},
		"executionContextId": 1,
		"timestamp":          1730000000000.5,
		"stackTrace": map[string]any{"callFrames": []any{map[string]any{
			"functionName": "tick", "scriptId": "12", "url": appJS, "lineNumber": 9, "columnNumber": 4,
		}}},
	})
	return b
}

func TestLogsQuery(t *testing.T) {
	s := allSamples(t)
	tests := []struct {
		name  string
		q     LogQuery
		want  []uint64
		next  uint64
		trunc bool
	}{
		{"all", LogQuery{}, seqRange(1, 7), 7, false},
		{"level", LogQuery{Level: "error"}, []uint64{3, 4, 5}, 7, false},
		{"text ignores case", LogQuery{Text: "API"}, []uint64{2, 3, 5}, 7, false},
		{"level and text", LogQuery{Level: "error", Text: "boom"}, []uint64{4}, 7, false},
		{"paged", LogQuery{Level: "error", Limit: 2}, []uint64{3, 4}, 4, true},
		{"after cursor", LogQuery{Level: "error", After: 4}, []uint64{5}, 7, false},
		{"no match", LogQuery{Text: "absent"}, nil, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := s.Logs(tabID, tt.q)
			var got []uint64
			for _, e := range p.Entries {
				got = append(got, e.Seq)
			}
			assert.Equal(t, tt.want, got, "seqs")
			assert.Equal(t, tt.next, p.Next, "next")
			assert.Equal(t, tt.trunc, p.Truncated, "truncated")
		})
	}
	assert.Empty(t, s.Logs(99, LogQuery{}).Entries, "unknown tab")
}

func TestNetworkQuery(t *testing.T) {
	s := allSamples(t)
	tests := []struct {
		name string
		q    NetworkQuery
		want []string
	}{
		{"all", NetworkQuery{}, []string{"/", "/missing.json", "/api/items?page=2", "/unreachable", "/cross-origin", "/old", "/new"}},
		{"failed only", NetworkQuery{FailedOnly: true}, []string{"/missing.json", "/unreachable", "/cross-origin"}},
		{"4xx", NetworkQuery{StatusMin: 400, StatusMax: 499}, []string{"/missing.json"}},
		{"2xx", NetworkQuery{StatusMin: 200, StatusMax: 299}, []string{"/", "/api/items?page=2", "/new"}},
		{"max only excludes no response", NetworkQuery{StatusMax: 302}, []string{"/", "/api/items?page=2", "/old", "/new"}},
		{"url substring", NetworkQuery{URLContains: "API/items"}, []string{"/api/items?page=2"}},
		{"type", NetworkQuery{ResourceType: "XHR"}, []string{"/api/items?page=2"}},
		{"limit", NetworkQuery{Limit: 1, After: 1}, []string{"/missing.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, normalizePaths(s.Network(tabID, tt.q).Entries))
		})
	}
}

// normalizePaths returns the requests' URL paths.
func normalizePaths(rs []Request) []string {
	var out []string
	for _, r := range rs {
		u := r.URL[len("http://"):]
		for i := range len(u) {
			if u[i] == '/' {
				u = u[i:]
				break
			}
		}
		out = append(out, u)
	}
	return out
}

func TestWebSocketQuery(t *testing.T) {
	s := allSamples(t)
	count := func(q WebSocketQuery) int { return len(s.WebSockets(tabID, q).Entries) }
	assert.Equal(t, 7, count(WebSocketQuery{}))
	assert.Equal(t, 2, count(WebSocketQuery{Direction: "sent"}))
	assert.Equal(t, 2, count(WebSocketQuery{Direction: "received"}))
	assert.Equal(t, 7, count(WebSocketQuery{SocketID: "41234.70", URLContains: "/ECHO"}))
	assert.Zero(t, count(WebSocketQuery{SocketID: "other"}))
}
