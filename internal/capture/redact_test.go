package capture

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storedPerKind is how many entries allSamples stores of each kind.
var storedPerKind = map[string]int{
	KindNavigation: 3, KindNetwork: 7, KindConsole: 7, KindException: 4, KindWebSocket: 7, KindDialog: 2,
}

func TestRedactorRewrites(t *testing.T) {
	var mu sync.Mutex
	calls := map[string]int{}
	s := newTestStore(t, &Options{Redactor: func(kind string, v any) (any, error) {
		mu.Lock()
		calls[kind]++
		mu.Unlock()
		switch e := v.(type) {
		case ConsoleEntry:
			e.Text = strings.ReplaceAll(e.Text, "boom", "[REDACTED]")
			return e, nil
		case Request:
			e.URL = strings.ReplaceAll(e.URL, "page=2", "page=[REDACTED]")
			return e, nil
		case Dialog:
			e.DefaultPrompt = "[REDACTED]"
			return e, nil
		}
		return v, nil
	}})
	ingestFiles(t, s, "navigation.json", "console.json", "exception.json", "fetch_404.json", "xhr.json",
		"fetch_failed.json", "redirect.json", "websocket.json", "dialog.json")
	assert.Equal(t, storedPerKind, calls, "one call per stored entry")

	assert.Empty(t, s.Logs(tabID, LogQuery{Text: "boom"}).Entries, "the stored text is the redacted one")
	assert.Len(t, s.Logs(tabID, LogQuery{Text: "[REDACTED]"}).Entries, 1)
	assert.Equal(t, "Error: [REDACTED]", s.Errors(tabID)[1].Message, "groups are built from redacted entries")
	xhr := s.Network(tabID, NetworkQuery{ResourceType: "XHR"}).Entries
	require.Len(t, xhr, 1)
	assert.Equal(t, "http://127.0.0.1:8765/api/items?page=[REDACTED]", xhr[0].URL)

	open := s.OpenDialogs(tabID)
	require.Len(t, open, 1)
	assert.Equal(t, "[REDACTED]", open[0].DefaultPrompt, "open dialogs are redacted when read")

	s.Ingest(tabID, "Network.requestWillBeSent", []byte(`{"requestId":"p","loaderId":"L","documentURL":"x","request":{"url":"http://a/?page=2","method":"GET","headers":{}},"timestamp":1,"wallTime":1730000000,"initiator":{"type":"other"}}`))
	pending := s.Pending(tabID)
	require.Len(t, pending, 1)
	assert.Equal(t, "http://a/?page=[REDACTED]", pending[0].URL, "pending requests are redacted when read")
}

func TestRedactorFailsClosed(t *testing.T) {
	refuse := map[string]Redactor{
		"error":                    func(string, any) (any, error) { return nil, errors.New("redact: pattern failed") },
		"panic":                    func(string, any) (any, error) { panic("bug") },
		"wrong type":               func(string, any) (any, error) { return "not an entry", nil },
		"pointer instead of value": func(_ string, v any) (any, error) { return &v, nil },
	}
	for name, bad := range refuse {
		t.Run(name, func(t *testing.T) {
			for blockedKind := range storedPerKind {
				s := newTestStore(t, &Options{Redactor: func(kind string, v any) (any, error) {
					if kind == blockedKind {
						return bad(kind, v)
					}
					return v, nil
				}})
				ingestFiles(t, s, "navigation.json", "console.json", "exception.json", "fetch_404.json", "xhr.json",
					"fetch_failed.json", "redirect.json", "websocket.json", "dialog.json")
				st := s.Stats()
				for kind, n := range storedPerKind {
					ks := st.Kinds[kind]
					if kind == blockedKind {
						assert.Zero(t, ks.Entries, "%s: %s entries", blockedKind, kind)
						assert.Equal(t, uint64(n), ks.Blocked, "%s: %s blocked", blockedKind, kind)
					} else {
						assert.Equal(t, n, ks.Entries, "%s: %s entries", blockedKind, kind)
						assert.Zero(t, ks.Blocked, "%s: %s blocked", blockedKind, kind)
					}
				}
				if blockedKind == KindDialog {
					assert.Empty(t, s.OpenDialogs(tabID), "an open dialog that fails redaction is not shown")
				}
				if blockedKind == KindConsole || blockedKind == KindException {
					for _, g := range s.Errors(tabID) {
						assert.NotEqual(t, blockedKind, g.Kind, "blocked entries are not grouped")
					}
				}
			}
		})
	}
}
