package nativemsg

import (
	"errors"
	"fmt"
)

// ErrEmptyFrame is returned for a frame whose declared length is zero. The
// Reader stays in sync, so the caller may log it and read on. Writer refuses
// to write an empty frame with the same error.
var ErrEmptyFrame = errors.New("nativemsg: empty frame")

// TooLargeError reports a frame or message over a size limit. Callers map it
// to the protocol error code message_too_large.
//
// From [Reader.ReadFrame] it is fatal: the body was not read, so the stream
// cannot be resynchronised. From [Writer] and [Splitter] nothing was written.
type TooLargeError struct {
	Len  int64 // the declared or actual length in bytes
	Max  int64 // the limit it exceeds
	what string
}

func (e *TooLargeError) Error() string {
	what := e.what
	if what == "" {
		what = "frame"
	}
	return fmt.Sprintf("nativemsg: %s of %d bytes exceeds the %d-byte limit", what, e.Len, e.Max)
}

// MalformedError is returned by [Reader.ReadMessage] for a well-framed body
// that is not valid UTF-8 JSON. The frame was consumed whole, so the stream is
// still in sync and the caller may skip it and read on.
type MalformedError struct {
	Len    int    // length of the rejected body in bytes
	Reason string // "invalid UTF-8" or "invalid JSON"
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("nativemsg: frame of %d bytes is not a JSON message: %s", e.Len, e.Reason)
}
