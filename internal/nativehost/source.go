package nativehost

import (
	"errors"
	"log/slog"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// The source stage of the redaction gateway (SAFETY.md, stage 1): page data
// is redacted in the native host, before it reaches the daemon. Only the
// CDP events and command results that carry page data are touched — found
// with gjson, without decoding anything else — and only their CDP payload
// (params.params of an event, result of a reply), never the envelope, so
// ids and session ids route as before. Screenshots and other results pass
// untouched (the server stage and screenshot masks cover them).

// pageEvents are the CDP events whose params carry page data: console
// text, exception messages, URLs, headers, cookies, post data, WebSocket
// frames and dialog text.
var pageEvents = map[string]bool{
	"Runtime.consoleAPICalled":                        true,
	"Runtime.exceptionThrown":                         true,
	"Log.entryAdded":                                  true,
	"Network.requestWillBeSent":                       true,
	"Network.requestWillBeSentExtraInfo":              true,
	"Network.responseReceived":                        true,
	"Network.responseReceivedExtraInfo":               true,
	"Network.loadingFailed":                           true,
	"Network.webSocketCreated":                        true,
	"Network.webSocketWillSendHandshakeRequest":       true,
	"Network.webSocketHandshakeResponseReceived":      true,
	"Network.webSocketFrameSent":                      true,
	"Network.webSocketFrameReceived":                  true,
	"Network.webSocketFrameError":                     true,
	"Network.eventSourceMessageReceived":              true,
	"Page.javascriptDialogOpening":                    true,
	"Page.frameNavigated":                             true,
	"Page.navigatedWithinDocument":                    true,
	"Page.frameRequestedNavigation":                   true,
	"Network.signedExchangeReceived":                  true,
	"Network.trustTokenOperationDone":                 true,
	"Network.subresourceWebBundleInnerResponseParsed": true,
}

// pageResults are the CDP commands whose results carry page data.
var pageResults = map[string]bool{
	"Network.getResponseBody":                true,
	"Network.getRequestPostData":             true,
	"Network.getCookies":                     true,
	"Network.getAllCookies":                  true,
	"Storage.getCookies":                     true,
	"DOMStorage.getDOMStorageItems":          true,
	"Network.getResponseBodyForInterception": true,
}

// maxTracked bounds the daemon requests remembered for their replies.
const maxTracked = 4096

// source redacts page data on its way up. A nil store disables it (tests
// of the relay alone).
type source struct {
	store *redact.Store
	log   *slog.Logger

	mu      sync.Mutex
	tracked map[int64]bool // daemon cdp.send ids whose results carry page data
	stats   struct{ redacted, blocked int64 }
}

// down notes a daemon request whose reply must be redacted.
func (s *source) down(msg []byte, h head) {
	if s.store == nil || h.Method != "cdp.send" || h.ID == 0 {
		return
	}
	if !pageResults[gjson.GetBytes(msg, "params.method").String()] {
		return
	}
	s.mu.Lock()
	if len(s.tracked) < maxTracked {
		s.tracked[h.ID] = true
	}
	s.mu.Unlock()
}

// reset forgets tracked requests (the daemon connection ended; their
// replies can no longer be delivered).
func (s *source) reset() {
	s.mu.Lock()
	clear(s.tracked)
	s.mu.Unlock()
}

// up returns msg with its page data redacted, or nil to drop it (an event
// the engine refused). A refused reply becomes a redaction_failed error.
func (s *source) up(msg []byte, h head) []byte {
	if s.store == nil {
		return msg
	}
	switch {
	case h.Method == "cdp.event":
		p := gjson.GetBytes(msg, "params.params")
		if !pageEvents[gjson.GetBytes(msg, "params.method").String()] || !p.IsObject() {
			return msg
		}
		out, err := s.splice(msg, p)
		if err != nil {
			s.log.Warn("page event dropped: redaction failed", "bytes", len(msg), "err", err)
			return nil
		}
		return out
	case h.isReply():
		s.mu.Lock()
		hit := s.tracked[h.ID]
		delete(s.tracked, h.ID)
		s.mu.Unlock()
		if !hit {
			return msg
		}
		res := gjson.GetBytes(msg, "result")
		if !res.IsObject() || gjson.GetBytes(msg, "result.base64Encoded").Bool() {
			return msg
		}
		out, err := s.splice(msg, res)
		if err != nil {
			s.log.Warn("page data reply blocked: redaction failed", "bytes", len(msg), "err", err)
			e := protocol.Errorf("redaction_failed", false, "the native host could not redact this result, so it was blocked (%v); fix the redaction policy", err)
			out, _ = protocol.Reply(h.ID, nil, e)
		}
		return out
	}
	return msg
}

// splice replaces the value v of msg with its redacted form.
func (s *source) splice(msg []byte, v gjson.Result) ([]byte, error) {
	e, err := s.store.Engine()
	if err != nil {
		s.count(0, err)
		return nil, err
	}
	i := v.Index
	if i <= 0 || i+len(v.Raw) > len(msg) || string(msg[i:i+len(v.Raw)]) != v.Raw {
		// No position: redact the whole payload re-encoded.
		return nil, errNoIndex
	}
	red, st, err := e.JSONKeepTypes([]byte(v.Raw))
	s.count(st.Redacted, err)
	if err != nil {
		return nil, err
	}
	if st.Redacted == 0 {
		return msg, nil
	}
	out := make([]byte, 0, len(msg)-len(v.Raw)+len(red))
	out = append(out, msg[:i]...)
	out = append(out, red...)
	return append(out, msg[i+len(v.Raw):]...), nil
}

// errNoIndex: gjson did not report where the payload sits; the message is
// refused rather than passed unredacted.
var errNoIndex = errors.New("nativehost: the payload's position in the message is unknown")

func (s *source) count(n int, err error) {
	s.mu.Lock()
	if err != nil {
		s.stats.blocked++
	} else {
		s.stats.redacted += int64(n)
	}
	s.mu.Unlock()
}
