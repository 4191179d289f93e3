package nativemsg_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

// readAll reads frames until an error other than ErrEmptyFrame and returns
// the bodies read ("<empty>" for an empty frame) and that error.
func readAll(t *testing.T, r *nativemsg.Reader) ([]string, error) {
	t.Helper()
	var got []string
	for range 1000 {
		b, err := r.ReadFrame()
		switch {
		case errors.Is(err, nativemsg.ErrEmptyFrame):
			got = append(got, "<empty>")
		case err != nil:
			return got, err
		default:
			got = append(got, string(b))
		}
	}
	t.Fatal("reader did not stop after 1000 frames")
	return nil, nil
}

func TestReadFrame(t *testing.T) {
	wrappers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one-byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
		"data-err": iotest.DataErrReader,
		"one-byte+data-err": func(r io.Reader) io.Reader {
			return iotest.DataErrReader(iotest.OneByteReader(r))
		},
	}
	tests := []struct {
		name    string
		input   []byte
		max     int
		want    []string
		wantErr error // matched with errors.Is; io.EOF must be returned unwrapped
	}{
		{name: "no input", input: nil, wantErr: io.EOF},
		{name: "one frame", input: stream(`{"id":1}`), want: []string{`{"id":1}`}, wantErr: io.EOF},
		{
			name:    "several frames",
			input:   stream(`{"a":1}`, `[]`, `"x"`, strings.Repeat("y", 300)),
			want:    []string{`{"a":1}`, `[]`, `"x"`, strings.Repeat("y", 300)},
			wantErr: io.EOF,
		},
		{
			name:    "empty frame keeps the stream in sync",
			input:   stream(`1`, ``, `2`),
			want:    []string{`1`, `<empty>`, `2`},
			wantErr: io.EOF,
		},
		{name: "exactly max", input: stream("0123456789abcdef"), max: 16, want: []string{"0123456789abcdef"}, wantErr: io.EOF},
		{name: "EOF mid-header", input: stream(`{}`)[:2], wantErr: io.ErrUnexpectedEOF},
		{name: "EOF mid-header after a frame", input: append(stream(`{}`), 7, 0), want: []string{`{}`}, wantErr: io.ErrUnexpectedEOF},
		{name: "EOF right after header", input: header(5), wantErr: io.ErrUnexpectedEOF},
		{name: "EOF mid-body", input: stream(`{"id":12345}`)[:9], wantErr: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		for wname, wrap := range wrappers {
			t.Run(tt.name+"/"+wname, func(t *testing.T) {
				r := nativemsg.NewReader(wrap(bytes.NewReader(tt.input)), tt.max)
				got, err := readAll(t, r)
				if strings.Join(got, "|") != strings.Join(tt.want, "|") {
					t.Errorf("frames: got %q, want %q", got, tt.want)
				}
				if tt.wantErr == io.EOF && err != io.EOF {
					t.Errorf("final error: got %v, want io.EOF itself", err)
				}
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("final error: got %v, want %v", err, tt.wantErr)
				}
				if again, _ := r.ReadFrame(); again != nil {
					t.Errorf("read after %v: got frame %q, want the sticky error", err, again)
				}
				if _, err2 := r.ReadFrame(); err2 != err {
					t.Errorf("read after %v: got error %v, want the same error", err, err2)
				}
			})
		}
	}
}

func TestReadFrameTooLarge(t *testing.T) {
	tests := []struct {
		name    string
		max     int
		declare uint32
		wantMsg string
	}{
		{name: "max+1", max: 16, declare: 17, wantMsg: "nativemsg: frame of 17 bytes exceeds the 16-byte limit"},
		{name: "default max+1", declare: nativemsg.MaxInbound + 1, wantMsg: "nativemsg: frame of 67108865 bytes exceeds the 67108864-byte limit"},
		{name: "4 GiB-1", declare: 1<<32 - 1, wantMsg: "nativemsg: frame of 4294967295 bytes exceeds the 67108864-byte limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The body is endless: reading it would never finish.
			src := &countingReader{r: io.MultiReader(bytes.NewReader(header(tt.declare)), endless{})}
			r := nativemsg.NewReader(src, tt.max)

			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b, err := r.ReadFrame()
			runtime.ReadMemStats(&after)

			var tl *nativemsg.TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("got frame of %d bytes, error %v; want *TooLargeError", len(b), err)
			}
			if got := err.Error(); got != tt.wantMsg {
				t.Errorf("message: got %q, want %q", got, tt.wantMsg)
			}
			if tl.Len != int64(tt.declare) {
				t.Errorf("Len: got %d, want %d", tl.Len, tt.declare)
			}
			if src.n != 4 {
				t.Errorf("bytes read: got %d, want 4 (the header only)", src.n)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("allocated %d bytes while rejecting the frame, want almost none", grew)
			}
			if _, err2 := r.ReadFrame(); err2 != err {
				t.Errorf("next read: got %v, want the same sticky error", err2)
			}
		})
	}
}

func TestReadFrameExactlyDefaultMax(t *testing.T) {
	src := io.MultiReader(bytes.NewReader(header(nativemsg.MaxInbound)), io.LimitReader(endless{}, nativemsg.MaxInbound))
	b, err := nativemsg.NewReader(src, 0).ReadFrame()
	if err != nil || len(b) != nativemsg.MaxInbound {
		t.Fatalf("got %d bytes, error %v; want %d bytes, no error", len(b), err, nativemsg.MaxInbound)
	}
}

func TestReadFrameSourceError(t *testing.T) {
	// TimeoutReader fails its second Read: the header arrives, the body does not.
	r := nativemsg.NewReader(iotest.TimeoutReader(bytes.NewReader(stream(`{"id":1}`))), 0)
	_, err := r.ReadFrame()
	if !errors.Is(err, iotest.ErrTimeout) {
		t.Fatalf("got %v, want an error wrapping %v", err, iotest.ErrTimeout)
	}
	if want := "nativemsg: reading 8-byte frame body: timeout"; err.Error() != want {
		t.Errorf("message: got %q, want %q", err, want)
	}

	r = nativemsg.NewReader(iotest.ErrReader(iotest.ErrTimeout), 0)
	if _, err := r.ReadFrame(); !errors.Is(err, iotest.ErrTimeout) || err.Error() != "nativemsg: reading frame header: timeout" {
		t.Errorf("header error: got %v, want %q", err, "nativemsg: reading frame header: timeout")
	}
}

func TestReadMessage(t *testing.T) {
	input := stream(`not json`, `{"id":1}`, "\"\xff\xfe\"", `{"id":2}`, ``, `{"id":3}`)
	r := nativemsg.NewReader(iotest.OneByteReader(bytes.NewReader(input)), 0)
	want := []string{
		`malformed: nativemsg: frame of 8 bytes is not a JSON message: invalid JSON`,
		`{"id":1}`,
		`malformed: nativemsg: frame of 4 bytes is not a JSON message: invalid UTF-8`,
		`{"id":2}`,
		`empty`,
		`{"id":3}`,
		`EOF`,
	}
	for i, w := range want {
		msg, err := r.ReadMessage()
		var got string
		var me *nativemsg.MalformedError
		switch {
		case errors.As(err, &me):
			got = "malformed: " + err.Error()
		case errors.Is(err, nativemsg.ErrEmptyFrame):
			got = "empty"
		case err == io.EOF:
			got = "EOF"
		case err != nil:
			got = "unexpected: " + err.Error()
		default:
			got = string(msg)
		}
		if got != w {
			t.Errorf("message %d: got %s, want %s", i, got, w)
		}
	}
}

func TestNativeEndian(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 0x0102) // different bytes in each position
	var out bytes.Buffer
	if err := nativemsg.NewWriter(&out).WriteFrame(body); err != nil {
		t.Fatal(err)
	}
	if got, want := out.Bytes()[:4], binary.NativeEndian.AppendUint32(nil, 0x0102); !bytes.Equal(got, want) {
		t.Errorf("header: got % x, want % x (native byte order)", got, want)
	}
	got, err := nativemsg.NewReader(&out, 0).ReadFrame()
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("round trip: got %d bytes, error %v; want %d bytes", len(got), err, len(body))
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// endless reads as an infinite run of 'a'.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}
