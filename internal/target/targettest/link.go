// Package targettest is a fake extension link for unit tests of the parts
// that drive tabs through targets (internal/actions, internal/interact,
// internal/generate): a cdp.Caller whose CDP commands a test answers per
// method, whose other link methods (tabs.*) it answers per method, and
// which records every call.
package targettest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// CDPFunc answers one CDP command sent on session ("" the tab's own) with
// its params; the value is the command's result, encoded as JSON.
type CDPFunc func(tab int, session string, params json.RawMessage) (any, error)

// MethodFunc answers one link method with its params.
type MethodFunc func(params json.RawMessage) (any, error)

// Link is a fake extension link. Its zero value answers every CDP command
// with {} and refuses every other method; set CDP and Methods before use.
type Link struct {
	CDP     map[string]CDPFunc
	Methods map[string]MethodFunc

	mu    sync.Mutex
	calls []string
}

// New returns a Link with empty answer tables.
func New() *Link { return &Link{CDP: map[string]CDPFunc{}, Methods: map[string]MethodFunc{}} }

// Call is cdp.Caller (and tabs.Caller): cdp.send goes to CDP by its
// method, anything else to Methods.
func (l *Link) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if method != "cdp.send" {
		l.record(method)
		f, ok := l.Methods[method]
		if !ok {
			return nil, fmt.Errorf("targettest: no answer for %s", method)
		}
		return encode(f(raw))
	}
	var send struct {
		TabID     int             `json:"tab_id"`
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
		SessionID string          `json:"session_id"`
	}
	if err := json.Unmarshal(raw, &send); err != nil {
		return nil, err
	}
	l.record(send.Method)
	f, ok := l.CDP[send.Method]
	if !ok {
		return json.RawMessage(`{}`), nil
	}
	return encode(f(send.TabID, send.SessionID, send.Params))
}

func encode(v any, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(v)
}

func (l *Link) record(m string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, m)
}

// Calls are the methods called so far (CDP commands by their CDP method),
// in order.
func (l *Link) Calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// Count is how many times method was called.
func (l *Link) Count(method string) int {
	n := 0
	for _, c := range l.Calls() {
		if c == method {
			n++
		}
	}
	return n
}

// FrameTree answers Page.getFrameTree with one main frame at url.
func FrameTree(url string) CDPFunc {
	return func(int, string, json.RawMessage) (any, error) {
		return json.RawMessage(`{"frameTree":{"frame":{"id":"MAIN","loaderId":"L","url":` + quote(url) +
			`,"domainAndRegistry":"","securityOrigin":"http://127.0.0.1","mimeType":"text/html","secureContextType":"Secure","crossOriginIsolatedContextType":"NotIsolated","gatedAPIFeatures":[]}}}`), nil
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// NoRedaction is a redaction gateway that passes everything (an
// mcpserver.Redactor for tests that are not about redaction).
type NoRedaction struct{}

func (NoRedaction) Text(_, s string) (string, error)        { return s, nil }
func (NoRedaction) JSON(_ string, b []byte) ([]byte, error) { return b, nil }
