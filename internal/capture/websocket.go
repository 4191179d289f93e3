package capture

import (
	"encoding/base64"

	"github.com/chromedp/cdproto/network"
)

// onSocketCreated records Network.webSocketCreated and remembers the
// socket's URL for its later events.
func (t *tab) onSocketCreated(p []byte) error {
	var ev network.EventWebSocketCreated
	if err := decode(p, &ev); err != nil {
		return err
	}
	e := WebSocketEvent{Event: "created"}
	e.SocketID = limit(string(ev.RequestID), maxShortText, &e.Truncated)
	e.URL = limit(ev.URL, t.opts.MaxURLBytes, &e.Truncated)
	t.mu.Lock()
	t.rememberSocket(e.SocketID, e.URL)
	e.Time = t.opts.Now()
	t.mu.Unlock()
	store(t, t.websockets, kWebSocket, e)
	return nil
}

// rememberSocket maps a socket id to its URL, forgetting the oldest socket
// when at MaxOpenSockets. Called with t.mu held.
func (t *tab) rememberSocket(id, url string) {
	if _, ok := t.sockets[id]; !ok {
		for len(t.sockets) >= t.opts.MaxOpenSockets && len(t.socketFIFO) > 0 {
			delete(t.sockets, t.socketFIFO[0])
			t.socketFIFO = t.socketFIFO[1:]
		}
		if len(t.socketFIFO) > 2*t.opts.MaxOpenSockets { // drop ids of closed sockets
			live := t.socketFIFO[:0:0]
			for _, s := range t.socketFIFO {
				if _, ok := t.sockets[s]; ok {
					live = append(live, s)
				}
			}
			t.socketFIFO = live
		}
		t.socketFIFO = append(t.socketFIFO, id)
	}
	t.sockets[id] = url
}

// onFrameSent records Network.webSocketFrameSent.
func (t *tab) onFrameSent(p []byte) error {
	var ev network.EventWebSocketFrameSent
	if err := decode(p, &ev); err != nil {
		return err
	}
	return t.frame(ev.RequestID, ev.Timestamp.Float64(), ev.Response, "sent")
}

// onFrameReceived records Network.webSocketFrameReceived.
func (t *tab) onFrameReceived(p []byte) error {
	var ev network.EventWebSocketFrameReceived
	if err := decode(p, &ev); err != nil {
		return err
	}
	return t.frame(ev.RequestID, ev.Timestamp.Float64(), ev.Response, "received")
}

// frame stores one WebSocket message. Text payloads are kept as text, binary
// ones (which cdproto has decoded from base64) as base64 again, both cut to
// MaxPayloadBytes.
func (t *tab) frame(id network.RequestID, ts float64, f *network.WebSocketFrame, dir string) error {
	if f == nil {
		return errMalformed
	}
	max := t.opts.MaxPayloadBytes
	e := WebSocketEvent{Event: "frame", Dir: dir, Opcode: int(f.Opcode), PayloadLen: len(f.PayloadData)}
	e.SocketID = limit(string(id), maxShortText, &e.Truncated)
	if f.Opcode == 1 {
		e.Payload, e.Truncated = truncateBytes(f.PayloadData, max)
	} else {
		keep := f.PayloadData[:min(len(f.PayloadData), max/4*3)] // its base64 fits in max
		e.Payload, e.Binary = base64.StdEncoding.EncodeToString(keep), true
		e.Truncated = len(keep) < len(f.PayloadData)
	}
	t.socketEvent(e, ts)
	return nil
}

// onFrameError records Network.webSocketFrameError.
func (t *tab) onFrameError(p []byte) error {
	var ev network.EventWebSocketFrameError
	if err := decode(p, &ev); err != nil {
		return err
	}
	e := WebSocketEvent{Event: "error"}
	e.SocketID = limit(string(ev.RequestID), maxShortText, &e.Truncated)
	e.Error = limit(ev.ErrorMessage, t.opts.MaxTextBytes, &e.Truncated)
	t.socketEvent(e, ev.Timestamp.Float64())
	return nil
}

// onSocketClosed records Network.webSocketClosed and forgets the socket.
func (t *tab) onSocketClosed(p []byte) error {
	var ev network.EventWebSocketClosed
	if err := decode(p, &ev); err != nil {
		return err
	}
	e := WebSocketEvent{Event: "closed"}
	e.SocketID = limit(string(ev.RequestID), maxShortText, &e.Truncated)
	t.socketEvent(e, ev.Timestamp.Float64())
	t.mu.Lock()
	delete(t.sockets, e.SocketID)
	t.mu.Unlock()
	return nil
}

// socketEvent fills the socket's URL and the event's wall time, and stores e.
func (t *tab) socketEvent(e WebSocketEvent, ts float64) {
	t.mu.Lock()
	e.URL = t.sockets[e.SocketID]
	e.Time = t.wallFromMono(ts)
	t.mu.Unlock()
	store(t, t.websockets, kWebSocket, e)
}
