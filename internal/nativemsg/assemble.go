package nativemsg

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// Assembler reassembles chunked messages from chunk frame bodies (see
// [Splitter]). The zero value is ready to use. It is not safe for concurrent
// use; one goroutine owns the input stream.
//
// Pieces must arrive in order, one message at a time. On any error the
// partial message is discarded and the Assembler expects seq 0 of a new
// message.
type Assembler struct {
	// Max is the largest reassembled message accepted; zero means
	// [MaxMessage].
	Max int

	id    string // id of the message in progress; "" when idle
	total int
	next  int // seq expected next
	buf   []byte
}

// chunk is one validated piece.
type chunk struct {
	id         string
	seq, total int
	data       string
}

// Add takes the next chunk frame body. When it completes a message it returns
// the message, which belongs to the caller, and done is true; otherwise msg
// is nil. The message is returned as bytes: parsing it is the caller's job. Add returns an error, discarding any partial message, for a frame
// that is not a well-formed chunk, a piece out of order, a total that changed
// or is under 2, a new id before the previous message is complete, bad base64,
// or a reassembled size over the limit (a [*TooLargeError]).
func (a *Assembler) Add(frame []byte) (msg []byte, done bool, err error) {
	c, err := parseChunk(frame)
	if err == nil {
		err = a.order(c)
	}
	if err == nil {
		err = a.appendData(c)
	}
	if err != nil {
		a.reset()
		return nil, false, err
	}
	a.next++
	if a.next < a.total {
		return nil, false, nil
	}
	msg = a.buf
	a.reset()
	return msg, true, nil
}

// parseChunk decodes and checks the envelope of one chunk frame.
func parseChunk(frame []byte) (chunk, error) {
	if !gjson.ValidBytes(frame) {
		return chunk{}, errors.New("nativemsg: chunk frame is not valid JSON")
	}
	obj := gjson.GetBytes(frame, "chunk")
	if !obj.IsObject() {
		return chunk{}, errors.New("nativemsg: frame is not a chunk")
	}
	m := obj.Map()
	id, seq, total, data := m["id"], m["seq"], m["total"], m["data"]
	if id.Type != gjson.String || id.Str == "" {
		return chunk{}, errors.New("nativemsg: chunk has no id")
	}
	if !seq.Exists() || !total.Exists() || !data.Exists() {
		return chunk{}, fmt.Errorf("nativemsg: chunk %s lacks seq, total or data", id.Str)
	}
	c := chunk{id: id.Str, data: data.Str}
	var seqOK, totalOK bool
	c.seq, seqOK = jsonInt(seq)
	c.total, totalOK = jsonInt(total)
	switch {
	case !seqOK || !totalOK || data.Type != gjson.String:
		return chunk{}, fmt.Errorf("nativemsg: chunk %s: seq and total must be integers and data a string", c.id)
	case c.total < 2:
		return chunk{}, fmt.Errorf("nativemsg: chunk %s has total %d; a chunked message has at least 2 pieces", c.id, c.total)
	}
	return c, nil
}

// jsonInt returns the value of a JSON integer that fits in an int.
func jsonInt(v gjson.Result) (int, bool) {
	if v.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.Atoi(v.Raw)
	return n, err == nil
}

// order checks that c is the piece expected next and, for seq 0, starts a
// message.
func (a *Assembler) order(c chunk) error {
	switch {
	case a.id == "" && c.seq != 0:
		return fmt.Errorf("nativemsg: chunk %s seq %d out of order: no message in progress, want seq 0", c.id, c.seq)
	case a.id == "":
		a.id, a.total = c.id, c.total
		return nil
	case c.id != a.id:
		return fmt.Errorf("nativemsg: chunk %s began before chunk %s was complete (%d of %d pieces); partial message discarded", c.id, a.id, a.next, a.total)
	case c.total != a.total:
		return fmt.Errorf("nativemsg: chunk %s total changed from %d to %d; partial message discarded", c.id, a.total, c.total)
	case c.seq != a.next:
		return fmt.Errorf("nativemsg: chunk %s seq %d out of order, want seq %d; partial message discarded", c.id, c.seq, a.next)
	}
	return nil
}

// appendData decodes c's data onto the message, enforcing the size limit
// before decoding when the data is certainly too large.
func (a *Assembler) appendData(c chunk) error {
	limit := limitOr(a.Max, MaxMessage)
	bound := base64.StdEncoding.DecodedLen(len(c.data))
	if least := len(a.buf) + bound - 2; least > limit {
		return &TooLargeError{Len: int64(least), Max: int64(limit), what: "reassembled message"}
	}
	start := len(a.buf)
	a.buf = append(a.buf, make([]byte, bound)...)
	n, err := base64.StdEncoding.Decode(a.buf[start:], []byte(c.data))
	if err != nil {
		return fmt.Errorf("nativemsg: chunk %s seq %d: bad base64 data: %w", c.id, c.seq, err)
	}
	a.buf = a.buf[:start+n]
	if len(a.buf) > limit {
		return &TooLargeError{Len: int64(len(a.buf)), Max: int64(limit), what: "reassembled message"}
	}
	return nil
}

// reset discards any message in progress.
func (a *Assembler) reset() {
	a.id, a.total, a.next, a.buf = "", 0, 0, nil
}
