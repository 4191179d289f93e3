package mcprelay

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
)

// The daemon's MCP SDK reads a request id as a string or a 64-bit
// integer: 1.5 would come back as 1, 9007199254740993 as
// 9007199254740992, 1e29 as a negative number. So the relay never lets a
// client's id reach the daemon: every request goes out under an id of the
// relay's own (1, 2, 3, …) and its answer comes back to the client with the
// client's id, byte for byte, as it was on the wire.

// idTable maps the relay's ids to the clients'. It belongs to the relay's
// run goroutine.
type idTable struct {
	next    int64
	pending map[int64]pendingReq // relay id → the client's request
	latest  map[string]int64     // the client's id (as sent) → its newest relay id
}

type pendingReq struct {
	client  json.RawMessage // the client's id, as sent; nil for the relay's own
	swallow bool            // the relay's own request: its answer is not the client's
}

func newIDTable() *idTable {
	return &idTable{pending: map[int64]pendingReq{}, latest: map[string]int64{}}
}

// add records a request and returns the relay id it goes out under.
func (t *idTable) add(client json.RawMessage) int64 {
	t.next++
	t.pending[t.next] = pendingReq{client: bytes.Clone(client)}
	t.latest[string(client)] = t.next
	return t.next
}

// addOwn records a request of the relay's own, whose answer is dropped.
func (t *idTable) addOwn() int64 {
	t.next++
	t.pending[t.next] = pendingReq{swallow: true}
	return t.next
}

// answered removes the request the relay id names.
func (t *idTable) answered(id int64) (pendingReq, bool) {
	p, ok := t.pending[id]
	if !ok {
		return p, false
	}
	delete(t.pending, id)
	if p.client != nil && t.latest[string(p.client)] == id {
		delete(t.latest, string(p.client))
	}
	return p, true
}

// drainAll returns the client's requests still unanswered, oldest first,
// and forgets every request (the relay's own included).
func (t *idTable) drainAll() []json.RawMessage {
	keys := make([]int64, 0, len(t.pending))
	for k := range t.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []json.RawMessage
	for _, k := range keys {
		if p := t.pending[k]; !p.swallow {
			out = append(out, p.client)
		}
	}
	clear(t.pending)
	clear(t.latest)
	return out
}

// clientRequests counts the client's requests in flight.
func (t *idTable) clientRequests() int {
	n := 0
	for _, p := range t.pending {
		if !p.swallow {
			n++
		}
	}
	return n
}

// validID reports whether raw is an id MCP allows: a string or a number
// (JSON-RPC's null is not allowed by MCP; objects, arrays and booleans are
// not ids at all).
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// setTopLevel returns msg (a JSON object) with the top-level member key set
// to val. Other members keep their values; the object is re-encoded, so
// duplicate keys collapse to the last one, as every Go decoder reads them.
func setTopLevel(msg []byte, key string, val json.RawMessage) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	m[key] = val
	return json.Marshal(m)
}

// relayID returns the relay's id in an answer from the daemon and where its
// value lies in msg. ok is false when the answer carries no id of the
// relay's (a string id, null, or none).
func relayID(msg []byte) (id int64, start, end int, ok bool) {
	r := gjson.GetBytes(msg, "id")
	if r.Type != gjson.Number || r.Index <= 0 {
		return 0, 0, 0, false
	}
	n, err := strconv.ParseInt(r.Raw, 10, 64)
	if err != nil {
		return 0, 0, 0, false
	}
	return n, r.Index, r.Index + len(r.Raw), true
}

// splice returns msg with msg[start:end] replaced by val.
func splice(msg []byte, start, end int, val []byte) []byte {
	out := make([]byte, 0, len(msg)-(end-start)+len(val))
	out = append(out, msg[:start]...)
	out = append(out, val...)
	return append(out, msg[end:]...)
}

// cancelled maps the requestId of a notifications/cancelled from the
// client to the relay's id; msg is returned unchanged when it names no
// request in flight.
func (t *idTable) cancelled(msg []byte) []byte {
	var n struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &n) != nil || n.Params == nil {
		return msg
	}
	id, ok := t.latest[string(bytes.TrimSpace(n.Params["requestId"]))]
	if !ok {
		return msg
	}
	n.Params["requestId"] = json.RawMessage(strconv.FormatInt(id, 10))
	params, err := json.Marshal(n.Params)
	if err != nil {
		return msg
	}
	out, err := setTopLevel(msg, "params", params)
	if err != nil {
		return msg
	}
	return out
}
