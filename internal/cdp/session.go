// Package cdp gives the daemon typed Chrome DevTools Protocol access to the
// user's tabs over the extension relay: a Session per tab (and child
// session) implements cdproto's cdp.Session, so commands are the generated
// typed values (runtime.Evaluate, page.Navigate, …) and events arrive
// through cdp.Events. The Router owns the routing state: which subscriber
// gets which event.
package cdp

import (
	"context"
	"encoding/json"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
)

// Caller sends one request over the extension link (a *browsers.Hub or an
// *extlink.Link).
type Caller interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// Session is one CDP target: a tab, or a child session inside it (an
// out-of-process iframe or a worker). It implements cdproto's cdp.Session.
type Session struct {
	caller    Caller
	router    *Router
	tabID     int
	sessionID string
}

var _ cdproto.Session = (*Session)(nil)

// TabID returns the tab the session addresses.
func (s *Session) TabID() int { return s.tabID }

// Child returns the session for a child target of the same tab.
func (s *Session) Child(sessionID string) *Session {
	return &Session{caller: s.caller, router: s.router, tabID: s.tabID, sessionID: sessionID}
}

type sendParams struct {
	TabID     int             `json:"tab_id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	SessionID string          `json:"session_id,omitempty"`
}

// Call runs one CDP command in the tab through the extension and decodes
// its result. It is bounded by ctx; relay and Chrome failures come back as
// *protocol.Error with the extension's code (tab_closed, restricted_page, …).
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	raw := json.RawMessage(`{}`)
	if params != nil {
		b, err := jsonv2.Marshal(params)
		if err != nil {
			return fmt.Errorf("cdp: encoding %s params: %w", method, err)
		}
		raw = b
	}
	res, err := s.caller.Call(ctx, "cdp.send", sendParams{TabID: s.tabID, Method: method, Params: raw, SessionID: s.sessionID})
	if err != nil {
		return err
	}
	if result == nil || len(res) == 0 {
		return nil
	}
	if err := jsonv2.Unmarshal(res, result); err != nil {
		return fmt.Errorf("cdp: decoding %s result: %w", method, err)
	}
	return nil
}

// Subscribe buffers the session's events of method until cancel is called
// or the tab goes away (the channel then closes).
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return s.router.subscribe(key{tab: s.tabID, session: s.sessionID, method: method})
}
