package nativemsg

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

const (
	// MaxInbound is the default limit on the declared length of a frame read
	// from the extension: 64 MiB.
	MaxInbound = protocol.MaxMessage

	// MaxOutbound is the largest frame body ever written to Chrome: 1 MiB.
	// Chromium closes the pipe on a frame of 1,048,577 bytes (measured).
	MaxOutbound = 1 << 20

	// headerLen is the size of the length prefix.
	headerLen = 4
)

// Reader reads native-messaging frames. It is not safe for concurrent use;
// one goroutine owns the input.
//
// Errors other than [ErrEmptyFrame] and [*MalformedError] leave the stream out
// of sync, so they are sticky: every later call returns the same error.
type Reader struct {
	r   io.Reader
	max int64
	hdr [headerLen]byte
	err error
}

// NewReader returns a Reader of frames from r that rejects a declared length
// over maxLen bytes. A maxLen of zero or less selects [MaxInbound].
func NewReader(r io.Reader, maxLen int) *Reader {
	if maxLen <= 0 {
		maxLen = MaxInbound
	}
	return &Reader{r: r, max: int64(maxLen)}
}

// ReadFrame reads one frame and returns its body. The slice is newly
// allocated for each frame and belongs to the caller; the Reader keeps no
// reference to it.
//
// The declared length is checked before anything is allocated: over the limit
// it returns a [*TooLargeError] without reading the body; zero returns
// [ErrEmptyFrame] and the stream stays in sync. End of input before the first
// header byte returns [io.EOF] itself; end of input inside a header or body
// returns an error wrapping [io.ErrUnexpectedEOF].
func (r *Reader) ReadFrame() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	n, err := r.readHeader()
	if err != nil {
		r.err = err
		return nil, err
	}
	switch {
	case n == 0:
		return nil, ErrEmptyFrame
	case n > r.max:
		r.err = &TooLargeError{Len: n, Max: r.max}
		return nil, r.err
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		r.err = fmt.Errorf("nativemsg: reading %d-byte frame body: %w", n, err)
		return nil, r.err
	}
	return body, nil
}

// readHeader reads the length prefix. It returns io.EOF unwrapped when the
// input ends cleanly between frames.
func (r *Reader) readHeader() (int64, error) {
	_, err := io.ReadFull(r.r, r.hdr[:])
	switch {
	case err == io.EOF:
		return 0, io.EOF
	case err != nil:
		return 0, fmt.Errorf("nativemsg: reading frame header: %w", err)
	}
	return int64(binary.NativeEndian.Uint32(r.hdr[:])), nil
}

// ReadMessage reads one frame like [Reader.ReadFrame] and checks that the body
// is valid UTF-8 JSON. A body that is not returns a [*MalformedError]; the
// frame has been consumed, so the caller may skip it and read on.
func (r *Reader) ReadMessage() (json.RawMessage, error) {
	b, err := r.ReadFrame()
	if err != nil {
		return nil, err
	}
	switch {
	case !utf8.Valid(b):
		return nil, &MalformedError{Len: len(b), Reason: "invalid UTF-8"}
	case !json.Valid(b):
		return nil, &MalformedError{Len: len(b), Reason: "invalid JSON"}
	}
	return b, nil
}
