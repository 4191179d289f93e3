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
	"Runtime.bindingCalled":                           true, // the action recorder's reports
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
	tracked map[int64]int // daemon cdp.send ids whose results carry page data → their tab
	// pending are the counts not yet reported to the daemon, by tab
	// (counts.go); changed holds a token while there are some.
	pending map[int]*tabCounts
	changed chan struct{}
}

func newSource(store *redact.Store, log *slog.Logger) *source {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &source{store: store, log: log, tracked: map[int64]int{}, pending: map[int]*tabCounts{}, changed: make(chan struct{}, 1)}
}

// down notes a daemon request whose reply must be redacted.
func (s *source) down(msg []byte, h head) {
	if s.store == nil || h.Method != "cdp.send" || h.ID == 0 {
		return
	}
	res := gjson.GetManyBytes(msg, "params.method", "params.tab_id")
	if !pageResults[res[0].String()] {
		return
	}
	s.mu.Lock()
	if len(s.tracked) < maxTracked {
		s.tracked[h.ID] = int(res[1].Int())
	}
	s.mu.Unlock()
}

// sequenceOfPageData reports a cdp.sequence request naming a command whose
// result carries page data: its results would reach the daemon without
// the source stage, which redacts only cdp.send replies, so the host
// refuses it (the daemon sends such commands with cdp.send).
func (s *source) sequenceOfPageData(msg []byte, h head) bool {
	if s.store == nil || h.Method != "cdp.sequence" {
		return false
	}
	for _, m := range gjson.GetBytes(msg, "params.steps.#.method").Array() {
		if pageResults[m.String()] {
			return true
		}
	}
	return false
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
		if !pageEvents[gjson.GetBytes(msg, "params.method").String()] {
			return msg
		}
		res := gjson.GetManyBytes(msg, "params.params", "params.tab_id")
		if !res[0].IsObject() {
			return msg
		}
		out, err := s.splice(msg, res[0], int(res[1].Int()))
		if err != nil {
			s.log.Warn("page event dropped: redaction failed", "bytes", len(msg), "err", err)
			return nil
		}
		return out
	case h.isReply():
		s.mu.Lock()
		tab, hit := s.tracked[h.ID]
		delete(s.tracked, h.ID)
		s.mu.Unlock()
		if !hit {
			return msg
		}
		res := gjson.GetBytes(msg, "result")
		if !res.IsObject() || gjson.GetBytes(msg, "result.base64Encoded").Bool() {
			return msg
		}
		out, err := s.splice(msg, res, tab)
		if err != nil {
			s.log.Warn("page data reply blocked: redaction failed", "bytes", len(msg), "err", err)
			e := protocol.Errorf("redaction_failed", false, "the native host could not redact this result, so it was blocked (%v); fix the redaction policy", err)
			out, _ = protocol.Reply(h.ID, nil, e)
		}
		return out
	}
	return msg
}

// splice replaces the value v of msg with its redacted form; the outcome
// is counted for tab.
func (s *source) splice(msg []byte, v gjson.Result, tab int) ([]byte, error) {
	e, err := s.store.Engine()
	if err != nil {
		s.count(tab, redact.Stats{}, err)
		return nil, err
	}
	i := v.Index
	if i <= 0 || i+len(v.Raw) > len(msg) || string(msg[i:i+len(v.Raw)]) != v.Raw {
		// No position: the message is refused (and counted as blocked).
		s.count(tab, redact.Stats{}, errNoIndex)
		return nil, errNoIndex
	}
	red, st, err := e.JSONKeepTypes([]byte(v.Raw))
	s.count(tab, st, err)
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
