package nativemsg_test

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

// recorder records each Write call.
type recorder struct {
	bytes.Buffer
	calls int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.calls++
	return r.Buffer.Write(p)
}

func TestWriteFrame(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		wantErr   error  // errors.Is
		wantMsg   string // exact error message, when wantErr is set
		wantCalls int
	}{
		{name: "one byte", size: 1, wantCalls: 1},
		{name: "exactly MaxOutbound", size: nativemsg.MaxOutbound, wantCalls: 1},
		{
			name: "MaxOutbound+1", size: nativemsg.MaxOutbound + 1,
			wantErr: &nativemsg.TooLargeError{},
			wantMsg: "nativemsg: frame of 1048577 bytes exceeds the 1048576-byte limit",
		},
		{name: "empty", size: 0, wantErr: nativemsg.ErrEmptyFrame, wantMsg: "nativemsg: empty frame"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := payload(1, tt.size)
			var out recorder
			err := nativemsg.NewWriter(&out).WriteFrame(body)
			if tt.wantErr != nil {
				var tl *nativemsg.TooLargeError
				if _, wantTL := tt.wantErr.(*nativemsg.TooLargeError); wantTL && !errors.As(err, &tl) {
					t.Errorf("error: got %v, want *TooLargeError", err)
				} else if !wantTL && !errors.Is(err, tt.wantErr) {
					t.Errorf("error: got %v, want %v", err, tt.wantErr)
				}
				if err != nil && err.Error() != tt.wantMsg {
					t.Errorf("message: got %q, want %q", err, tt.wantMsg)
				}
			} else if err != nil {
				t.Fatalf("error: got %v, want none", err)
			}
			if out.calls != tt.wantCalls {
				t.Errorf("Write calls: got %d, want %d", out.calls, tt.wantCalls)
			}
			if tt.wantErr != nil {
				if out.Len() != 0 {
					t.Errorf("wrote %d bytes, want none", out.Len())
				}
				return
			}
			if got, want := out.Len(), 4+tt.size; got != want {
				t.Errorf("wrote %d bytes, want %d", got, want)
			}
			got, err := nativemsg.NewReader(&out, 0).ReadFrame()
			if err != nil || !bytes.Equal(got, body) {
				t.Errorf("read back %d bytes, error %v; want the %d bytes written", len(got), err, len(body))
			}
		})
	}
}

func TestWriteMessage(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		wantFrames int
		wantChunks bool
	}{
		{name: "small", size: 64, wantFrames: 1},
		{name: "exactly MaxOutbound", size: nativemsg.MaxOutbound, wantFrames: 1},
		{name: "MaxOutbound+1", size: nativemsg.MaxOutbound + 1, wantFrames: 2, wantChunks: true},
		{name: "5 MiB", size: 5 << 20, wantFrames: 7, wantChunks: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := jsonMessage(0, tt.size, tt.size)
			var out recorder
			noErr(t, nativemsg.NewWriter(&out).WriteMessage(msg), "WriteMessage")
			if out.calls != tt.wantFrames {
				t.Errorf("Write calls: got %d, want %d (one per frame)", out.calls, tt.wantFrames)
			}
			r := nativemsg.NewReader(&out, nativemsg.MaxOutbound)
			var a nativemsg.Assembler
			for i := range tt.wantFrames {
				f, err := r.ReadFrame()
				noErr(t, err, "frame %d", i)
				if got := nativemsg.IsChunk(f); got != tt.wantChunks {
					t.Fatalf("frame %d: IsChunk got %v, want %v", i, got, tt.wantChunks)
				}
				if !tt.wantChunks {
					if !bytes.Equal(f, msg) {
						t.Errorf("frame of %d bytes differs from the %d-byte message", len(f), len(msg))
					}
					continue
				}
				got, done, err := a.Add(f)
				noErr(t, err, "frame %d", i)
				if wantDone := i == tt.wantFrames-1; done != wantDone {
					t.Fatalf("frame %d: done got %v, want %v", i, done, wantDone)
				}
				if done && !bytes.Equal(got, msg) {
					t.Errorf("reassembled %d bytes differ from the %d-byte message", len(got), len(msg))
				}
			}
			if _, err := r.ReadFrame(); err != io.EOF {
				t.Errorf("after the message: got %v, want io.EOF", err)
			}
		})
	}
}

func TestWriteMessageOverMaxMessage(t *testing.T) {
	var out recorder
	err := nativemsg.NewWriter(&out).WriteMessage(make([]byte, nativemsg.MaxMessage+1))
	var tl *nativemsg.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("got %v, want *TooLargeError", err)
	}
	if want := "nativemsg: message of 67108865 bytes exceeds the 67108864-byte limit"; err.Error() != want {
		t.Errorf("message: got %q, want %q", err, want)
	}
	if out.calls != 0 {
		t.Errorf("Write calls: got %d, want 0", out.calls)
	}
}

// failingWriter fails every Write from the failAt-th call on (1-based), and
// reports a short write without error when short is set.
type failingWriter struct {
	calls, failAt int
	short         bool
}

var errPipe = errors.New("broken pipe")

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	switch {
	case f.calls < f.failAt:
		return len(p), nil
	case f.short:
		return len(p) - 1, nil
	}
	return 0, errPipe
}

func TestWriterStickyError(t *testing.T) {
	tests := []struct {
		name    string
		fw      *failingWriter
		wantErr error
	}{
		{name: "error", fw: &failingWriter{failAt: 2}, wantErr: errPipe},
		{name: "short write", fw: &failingWriter{failAt: 2, short: true}, wantErr: io.ErrShortWrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := nativemsg.NewWriter(tt.fw)
			noErr(t, w.WriteFrame([]byte(`{"id":1}`)), "first write")
			first := w.WriteFrame([]byte(`{"id":2}`))
			if !errors.Is(first, tt.wantErr) {
				t.Fatalf("failed write: got %v, want %v", first, tt.wantErr)
			}
			later := []func() error{
				func() error { return w.WriteFrame([]byte(`{"id":3}`)) },
				func() error { return w.WriteMessage([]byte(`{"id":4}`)) },
				func() error { return w.WriteMessage(make([]byte, 3<<20)) },
			}
			for i, write := range later {
				if err := write(); err != first {
					t.Errorf("write %d after failure: got %v, want the same error %v", i, err, first)
				}
			}
			if tt.fw.calls != 2 {
				t.Errorf("underlying Write calls: got %d, want 2 (none after the failure)", tt.fw.calls)
			}
		})
	}
}

func TestWriterConcurrentNoInterleave(t *testing.T) {
	const goroutines, perGoroutine = 8, 4
	sizes := []int{64, 1000, 64 << 10, nativemsg.MaxOutbound, nativemsg.MaxOutbound + 1, 2<<20 + 17}

	var out bytes.Buffer // touched only under the Writer's lock
	w := nativemsg.NewWriter(&out)
	want := map[string]int{}
	var wg sync.WaitGroup
	for g := range goroutines {
		msgs := make([][]byte, perGoroutine)
		for i := range msgs {
			msgs[i] = jsonMessage(g, i, sizes[(g+i)%len(sizes)])
			want[string(msgs[i])]++
		}
		wg.Go(func() {
			for _, m := range msgs {
				if err := w.WriteMessage(m); err != nil {
					t.Errorf("goroutine %d: WriteMessage: %v", g, err)
				}
			}
		})
	}
	wg.Wait()

	r := nativemsg.NewReader(&out, nativemsg.MaxOutbound)
	var a nativemsg.Assembler
	got := map[string]int{}
	inRun := false
	for {
		f, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		noErr(t, err, "reading output")
		if !nativemsg.IsChunk(f) {
			if inRun {
				t.Fatalf("a %d-byte plain frame was interleaved in a chunk run", len(f))
			}
			got[string(f)]++
			continue
		}
		msg, done, err := a.Add(f)
		noErr(t, err, "chunk runs must be contiguous")
		inRun = !done
		if done {
			got[string(msg)]++
		}
	}
	if inRun {
		t.Error("output ends inside a chunk run")
	}
	if len(got) != len(want) {
		t.Errorf("distinct messages: got %d, want %d", len(got), len(want))
	}
	for m, n := range want {
		if got[m] != n {
			t.Errorf("message of %d bytes: got %d copies, want %d", len(m), got[m], n)
		}
	}
}
