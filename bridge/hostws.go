package bridge

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/terminal"
	"github.com/gasoline-mcp/gasoline/internal/wsutil"
)

// MaxMessage bounds one WebSocket message on the daemon's sockets; the
// extension may send large CDP results (screenshots) that the host relays.
const MaxMessage = 64 << 20

// handleHostWS accepts a native host's connection (already past the guard:
// loopback Host, allowed Origin, bearer token) and serves the extension link
// on it until either side closes.
func (s *Server) handleHostWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// Origin is already checked by the guard; native hosts send none.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return
	}
	c.SetReadLimit(MaxMessage)
	hostVersion := r.Header.Get("X-Gasoline-Version")
	s.log.Info("native host connected", "host_version", hostVersion, "remote", r.RemoteAddr)

	l := extlink.New(wsConn{c, s.touch}, extlink.Options{
		Version: s.cfg.Version,
		Logger:  s.log,
		OnReady: func(l *extlink.Link) {
			h, r := l.Hello(), s.links.Add(l)
			s.log.Info("extension ready", "extension_version", h.Version, "browser", r.Info.Label(), "slot", r.Slot, "restarted", r.Restarted)
			s.browser.tabs.LinkReady(r.Slot, r.Restarted)
		},
		OnEvent: s.onExtensionEvent,
		Serve:   s.servePanel,
	})
	err = l.Serve(r.Context())
	s.terms.Drop(l)
	if slot, current := s.links.Remove(l); current {
		s.browser.tabs.LinkLost(slot)
	}
	c.CloseNow()
	s.log.Info("native host disconnected", "err", err)
}

// onExtensionEvent receives CDP and tab events on the link's read
// goroutine and routes them; it never blocks. Tab ids become Gasoline tab
// ids here (internal/browsers). Tab state is updated before the router
// forgets a tab, so a waiter whose events end can tell why.
func (s *Server) onExtensionEvent(l *extlink.Link, ev extlink.Event) {
	if terminal.Handles(ev.Method) {
		s.terms.Event(l, ev.Method, ev.Params)
		return
	}
	slot, _ := s.links.Slot(l)
	switch ev.Method {
	case "cdp.event":
		var p struct {
			TabID     int             `json:"tab_id"`
			Method    string          `json:"method"`
			Params    json.RawMessage `json:"params"`
			SessionID string          `json:"session_id"`
		}
		if json.Unmarshal(ev.Params, &p) != nil {
			s.log.Warn("malformed cdp.event dropped", "bytes", len(ev.Params))
			return
		}
		tab := browsers.TabID(slot, p.TabID)
		// Capture first: a subscriber that sees an event knows the
		// buffers already hold it.
		s.browser.event(ev.Method, tab, p.SessionID, p.Method, p.Params, nil)
		s.router.Dispatch(tab, p.SessionID, p.Method, p.Params)
	case "tabs.removed", "cdp.detached", "cdp.attached", "tabs.ungrouped", "tabs.grouped", "tabs.replaced", "tabs.updated", "tabs.opened":
		params, err := browsers.Globalize(slot, ev.Params)
		var p struct {
			TabID int `json:"tab_id"`
		}
		if err != nil || json.Unmarshal(params, &p) != nil {
			s.log.Warn("malformed tab event dropped", "method", ev.Method, "bytes", len(ev.Params))
			return
		}
		s.browser.event(ev.Method, p.TabID, "", "", nil, params)
		if ev.Method == "tabs.removed" || ev.Method == "cdp.detached" {
			s.router.Forget(p.TabID)
		}
		s.log.Debug("extension event", "method", ev.Method, "tab", p.TabID)
	case "browser.focused":
		s.links.Focused(l)
	case "browser.renamed":
		var p struct {
			Profile string `json:"profile"`
		}
		json.Unmarshal(ev.Params, &p)
		s.links.Renamed(l, p.Profile)
	case "redaction.counts": // the host's own event: its source stage's counts
		owner := func(tab int) (string, bool) { return s.browser.tabs.Registry().Owner(browsers.TabID(slot, tab)) }
		if err := s.safe.OnRedactionCounts(ev.Params, owner); err != nil {
			s.log.Warn("host redaction counts dropped", "err", err)
		}
	default:
		s.log.Debug("extension event", "method", ev.Method, "bytes", len(ev.Params))
	}
}

// wsConn adapts a WebSocket to extlink.Conn (one message per text frame).
// touch, when set, marks activity for each message read (release.go).
type wsConn struct {
	c     *websocket.Conn
	touch func()
}

func (w wsConn) Read(ctx context.Context) ([]byte, error) {
	_, b, err := w.c.Read(ctx)
	if w.touch != nil {
		w.touch()
	}
	return b, err
}

// writeTimeout bounds one write to a native host.
const writeTimeout = 10 * time.Second

// Write sends one message; the caller's cancellation does not close the
// link (see wsutil.Write).
func (w wsConn) Write(ctx context.Context, b []byte) error {
	return wsutil.Write(ctx, w.c, b, writeTimeout)
}

func (w wsConn) Close(reason string) error {
	return w.c.Close(websocket.StatusNormalClosure, reason)
}
