package nativemsg

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
)

// Writer writes native-messaging frames. It is meant to be the one owner of
// the host's stdout. It is safe for concurrent use: each frame, and each run
// of chunk frames, is written whole with no other frame between its parts.
//
// A write error is sticky: the pipe is gone, so every later write returns the
// same error without touching the underlying writer.
type Writer struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte // header and body of the frame being written; reused
	err   error  // sticky write error
	split Splitter
}

// NewWriter returns a Writer of frames to w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w}
}

// WriteFrame writes b as one frame. It refuses a body over [MaxOutbound]
// bytes with a [*TooLargeError] and an empty body with [ErrEmptyFrame],
// writing nothing in either case. The length prefix and the body go to the
// underlying writer in a single Write call. WriteFrame does not retain b.
func (w *Writer) WriteFrame(b []byte) error {
	if err := checkFrame(b); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(b)
}

// WriteMessage writes b as one frame when it fits in [MaxOutbound] bytes, and
// otherwise as a run of chunk frames (see [Splitter]) written consecutively,
// in order, with no other frame between them. A message over [MaxMessage]
// bytes is refused with a [*TooLargeError] and nothing is written.
func (w *Writer) WriteMessage(b []byte) error {
	if len(b) <= MaxOutbound {
		return w.WriteFrame(b)
	}
	frames, err := w.split.Split(b)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, f := range frames {
		if err := w.writeLocked(f); err != nil {
			return err
		}
	}
	return nil
}

// checkFrame reports whether b may be written as one frame.
func checkFrame(b []byte) error {
	switch {
	case len(b) == 0:
		return ErrEmptyFrame
	case len(b) > MaxOutbound:
		return &TooLargeError{Len: int64(len(b)), Max: MaxOutbound}
	}
	return nil
}

// writeLocked writes one frame in a single Write call. w.mu must be held.
func (w *Writer) writeLocked(b []byte) error {
	if w.err != nil {
		return w.err
	}
	w.buf = binary.NativeEndian.AppendUint32(w.buf[:0], uint32(len(b)))
	w.buf = append(w.buf, b...)
	n, err := w.w.Write(w.buf)
	if err == nil && n < len(w.buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("nativemsg: writing frame: %w", err)
	}
	return w.err
}
