package nativemsg_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

func FuzzReader(f *testing.F) {
	f.Add(stream(`{"id":1}`, ``, `[1,2]`), uint16(64))
	f.Add(stream(`not json`, "\"\xff\""), uint16(0))
	f.Add(append(stream(`{}`), 1, 2), uint16(16))
	f.Add(header(1<<32-1), uint16(100))
	f.Add(header(17), uint16(16))
	f.Add([]byte{}, uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		maxLen := int(limit%2048) + 1
		// Every read consumes at least a 4-byte header or ends the stream.
		steps := len(data)/4 + 2

		r := nativemsg.NewReader(bytes.NewReader(data), maxLen)
		for i := 0; ; i++ {
			if i == steps {
				t.Fatalf("ReadFrame still going after %d calls on %d bytes", i, len(data))
			}
			b, err := r.ReadFrame()
			if errors.Is(err, nativemsg.ErrEmptyFrame) {
				continue
			}
			if err != nil {
				if again, err2 := r.ReadFrame(); again != nil || err2 != err {
					t.Fatalf("after %v: got %d bytes, %v; want the same sticky error", err, len(again), err2)
				}
				break
			}
			if len(b) == 0 || len(b) > maxLen {
				t.Fatalf("frame of %d bytes, want 1..%d", len(b), maxLen)
			}
		}

		r = nativemsg.NewReader(bytes.NewReader(data), maxLen)
		for range steps {
			_, err := r.ReadMessage()
			var me *nativemsg.MalformedError
			if err != nil && !errors.Is(err, nativemsg.ErrEmptyFrame) && !errors.As(err, &me) {
				return
			}
		}
		t.Fatalf("ReadMessage still going after %d calls on %d bytes", steps, len(data))
	})
}

// FuzzAssembler feeds newline-separated frames to an Assembler. Chunk frames
// are compact JSON, so they never contain a raw newline.
func FuzzAssembler(f *testing.F) {
	join := func(frames ...[]byte) []byte { return bytes.Join(frames, []byte("\n")) }
	f.Add(join(chunkJSON("c1", 0, 2, "hello "), chunkJSON("c1", 1, 2, "world")))
	f.Add(join(chunkJSON("c1", 0, 3, "a"), chunkJSON("c2", 0, 2, "b"), chunkJSON("c2", 1, 2, "c")))
	f.Add(join(chunkJSON("c1", 0, 2, "a"), chunkJSON("c1", 1, 3, "b")))
	f.Add(join(chunkJSON("c1", 1, 2, "a"), []byte(`{"chunk":{"id":"c1","seq":0,"total":2,"data":"!!"}}`)))
	f.Add(join([]byte(`{"chunk":{"id":"c1","seq":0,"total":99999999999,"data":""}}`), []byte(`{"chunk":1}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 4096
		a := nativemsg.Assembler{Max: limit}
		for _, frame := range bytes.Split(data, []byte("\n")) {
			_ = nativemsg.IsChunk(frame)
			msg, done, err := a.Add(frame)
			switch {
			case err != nil && (msg != nil || done):
				t.Fatalf("error %v came with msg %q, done %v", err, msg, done)
			case !done && msg != nil:
				t.Fatalf("msg %q returned before done", msg)
			case len(msg) > limit:
				t.Fatalf("reassembled %d bytes, over the %d-byte limit", len(msg), limit)
			}
		}
	})
}

// FuzzRoundTrip writes a message built from the input (up to 3 pieces long)
// and checks that reading and reassembling the frames gives it back.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(`{"id":1,"result":{}}`), uint32(0))
	f.Add([]byte(`{"chunk":{"id":"c1","seq":0,"total":2,"data":""}}`), uint32(nativemsg.MaxOutbound))
	f.Add([]byte("€😀"), uint32(nativemsg.ChunkPiece))
	f.Add([]byte{}, uint32(nativemsg.MaxOutbound-1))
	f.Add([]byte{0xff}, uint32(2*nativemsg.ChunkPiece))
	f.Fuzz(func(t *testing.T, seed []byte, extra uint32) {
		msg := roundTripMessage(seed, int(extra%(3*nativemsg.ChunkPiece)))
		var out bytes.Buffer
		err := nativemsg.NewWriter(&out).WriteMessage(msg)
		if len(msg) == 0 {
			if !errors.Is(err, nativemsg.ErrEmptyFrame) {
				t.Fatalf("empty message: got %v, want ErrEmptyFrame", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("WriteMessage of %d bytes: %v", len(msg), err)
		}
		got := readBack(t, &out, len(msg) > nativemsg.MaxOutbound)
		if !bytes.Equal(got, msg) {
			t.Fatalf("read back %d bytes, want the %d bytes written", len(got), len(msg))
		}
	})
}

// roundTripMessage returns seed followed by extra filler bytes, with a second
// copy of seed placed across the first piece boundary when it fits.
func roundTripMessage(seed []byte, extra int) []byte {
	msg := append(append([]byte(nil), seed...), make([]byte, extra)...)
	for i := len(seed); i < len(msg); i++ {
		msg[i] = byte(i*31 + len(seed))
	}
	if at := nativemsg.ChunkPiece - len(seed)/2; at >= 0 && at+len(seed) <= len(msg) {
		copy(msg[at:], seed)
	}
	return msg
}

// readBack reads every frame in out, each at most MaxOutbound bytes, and
// returns the one message they carry: the single frame, or the reassembled
// chunk run.
func readBack(t *testing.T, out io.Reader, chunked bool) []byte {
	t.Helper()
	r := nativemsg.NewReader(out, nativemsg.MaxOutbound)
	var a nativemsg.Assembler
	var msg []byte
	for n := 0; ; n++ {
		f, err := r.ReadFrame()
		if err == io.EOF {
			return msg
		}
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		if msg != nil {
			t.Fatalf("frame %d follows a complete message", n)
		}
		if !chunked {
			msg = f
			continue
		}
		m, done, err := a.Add(f)
		if err != nil {
			t.Fatalf("chunk %d: %v", n, err)
		}
		if done {
			msg = m
		}
	}
}
