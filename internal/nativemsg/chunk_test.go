package nativemsg_test

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

// chunkSizes are message sizes around the piece and frame boundaries.
var chunkSizes = []int{
	nativemsg.ChunkPiece + 1,
	3<<18 - 1, 3 << 18, 3<<18 + 1, // 0.75 MiB ±1
	nativemsg.MaxOutbound - 1, nativemsg.MaxOutbound, nativemsg.MaxOutbound + 1,
	2*nativemsg.ChunkPiece - 1, 2 * nativemsg.ChunkPiece, 2*nativemsg.ChunkPiece + 1,
	5 << 20,
}

func TestSplitFrameSizes(t *testing.T) {
	sizes := append([]int(nil), chunkSizes...)
	for d := range 8 { // each residue of the base64 padding, twice
		sizes = append(sizes, nativemsg.ChunkPiece+2+d, 3*nativemsg.ChunkPiece-d)
	}
	var s nativemsg.Splitter
	for _, n := range sizes {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			frames, err := s.Split(make([]byte, n))
			noErr(t, err, "Split")
			if got, want := len(frames), (n+nativemsg.ChunkPiece-1)/nativemsg.ChunkPiece; got != want {
				t.Errorf("frames: got %d, want %d", got, want)
			}
			largest := 0
			for _, f := range frames {
				largest = max(largest, len(f))
			}
			if largest > nativemsg.MaxOutbound {
				t.Errorf("largest frame: got %d bytes, want at most %d", largest, nativemsg.MaxOutbound)
			}
		})
	}
}

func TestSplitAssembleRoundTrip(t *testing.T) {
	type test struct {
		name string
		msg  []byte
		utf8 bool // a rune straddles each piece boundary
	}
	tests := []test{
		{name: "multibyte UTF-8 across piece boundaries", msg: utf8Across(3*nativemsg.ChunkPiece + 5), utf8: true},
	}
	for i, n := range chunkSizes {
		tests = append(tests, test{name: strconv.Itoa(n), msg: payload(uint64(i), n)})
	}
	var s nativemsg.Splitter
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frames, err := s.Split(tt.msg)
			noErr(t, err, "Split")
			for k := nativemsg.ChunkPiece; tt.utf8 && k < len(tt.msg); k += nativemsg.ChunkPiece {
				if utf8.RuneStart(tt.msg[k]) {
					t.Fatalf("piece boundary %d falls between runes, want it inside one", k)
				}
			}
			var a nativemsg.Assembler
			for i, f := range frames {
				if !nativemsg.IsChunk(f) {
					t.Fatalf("frame %d: IsChunk got false, want true", i)
				}
				got, done, err := a.Add(f)
				noErr(t, err, "Add frame %d", i)
				if wantDone := i == len(frames)-1; done != wantDone {
					t.Fatalf("frame %d: done got %v, want %v", i, done, wantDone)
				}
				if done && !bytes.Equal(got, tt.msg) {
					t.Errorf("reassembled %d bytes differ from the %d-byte message", len(got), len(tt.msg))
				}
			}
		})
	}
}

// utf8Across returns n bytes of valid UTF-8 ("a" then 4-byte runes, an
// ASCII tail) in which a rune straddles every piece boundary, since
// ChunkPiece is a multiple of 4.
func utf8Across(n int) []byte {
	b := append([]byte("a"), strings.Repeat("😀", n/4)...)
	return append(b, strings.Repeat("z", n-len(b))...)
}

func TestSplitRefuses(t *testing.T) {
	tests := []struct {
		name    string
		s       nativemsg.Splitter
		size    int
		wantMsg string
		tooBig  bool
	}{
		{
			name: "fits in one piece", size: nativemsg.ChunkPiece,
			wantMsg: "nativemsg: message of 786240 bytes fits in one 786240-byte piece; send it as one frame",
		},
		{
			name: "over Max", s: nativemsg.Splitter{Max: 2 * nativemsg.ChunkPiece}, size: 2*nativemsg.ChunkPiece + 1,
			wantMsg: "nativemsg: message of 1572481 bytes exceeds the 1572480-byte limit", tooBig: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frames, err := tt.s.Split(make([]byte, tt.size))
			if err == nil {
				t.Fatalf("got %d frames, want an error", len(frames))
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("message: got %q, want %q", err, tt.wantMsg)
			}
			var tl *nativemsg.TooLargeError
			if got := errors.As(err, &tl); got != tt.tooBig {
				t.Errorf("is *TooLargeError: got %v, want %v", got, tt.tooBig)
			}
		})
	}
}

func TestSplitIDs(t *testing.T) {
	const goroutines, each = 4, 8
	idRE := regexp.MustCompile(`^\{"chunk":\{"id":"c([0-9]+)","seq":0,`)
	msg := make([]byte, nativemsg.ChunkPiece+1)
	ids := make([][]uint64, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			var s nativemsg.Splitter // ids are process-wide, not per Splitter
			for range each {
				frames, err := s.Split(msg)
				if err != nil {
					t.Errorf("Split: %v", err)
					return
				}
				m := idRE.FindSubmatch(frames[0])
				if m == nil {
					t.Errorf("frame starts %q, want a chunk id c<N>", frames[0][:40])
					return
				}
				id, _ := strconv.ParseUint(string(m[1]), 10, 64)
				ids[g] = append(ids[g], id)
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for g, list := range ids {
		for i, id := range list {
			if seen[id] {
				t.Errorf("id c%d issued twice", id)
			}
			seen[id] = true
			if i > 0 && id <= list[i-1] {
				t.Errorf("goroutine %d: id c%d after c%d, want increasing", g, id, list[i-1])
			}
		}
	}
}

func TestAssemblerErrors(t *testing.T) {
	ok0 := chunkJSON("c1", 0, 3, "abc")
	ok1 := chunkJSON("c1", 1, 3, "def")
	tests := []struct {
		name    string
		max     int
		frames  [][]byte // all but the last must be accepted
		wantMsg string
	}{
		{name: "not JSON", frames: [][]byte{[]byte(`{"chunk":`)}, wantMsg: "nativemsg: chunk frame is not valid JSON"},
		{name: "not a chunk", frames: [][]byte{[]byte(`{"id":1,"result":{}}`)}, wantMsg: "nativemsg: frame is not a chunk"},
		{name: "chunk not an object", frames: [][]byte{[]byte(`{"chunk":null}`)}, wantMsg: "nativemsg: frame is not a chunk"},
		{name: "no id", frames: [][]byte{[]byte(`{"chunk":{"seq":0,"total":2,"data":""}}`)}, wantMsg: "nativemsg: chunk has no id"},
		{name: "no seq", frames: [][]byte{[]byte(`{"chunk":{"id":"c1","total":2,"data":""}}`)}, wantMsg: "nativemsg: chunk c1 lacks seq, total or data"},
		{name: "no total", frames: [][]byte{[]byte(`{"chunk":{"id":"c1","seq":0,"data":""}}`)}, wantMsg: "nativemsg: chunk c1 lacks seq, total or data"},
		{name: "no data", frames: [][]byte{[]byte(`{"chunk":{"id":"c1","seq":0,"total":2}}`)}, wantMsg: "nativemsg: chunk c1 lacks seq, total or data"},
		{name: "seq not an integer", frames: [][]byte{[]byte(`{"chunk":{"id":"c1","seq":0.5,"total":2,"data":""}}`)}, wantMsg: "nativemsg: chunk c1: seq and total must be integers and data a string"},
		{name: "total a string", frames: [][]byte{[]byte(`{"chunk":{"id":"c1","seq":0,"total":"2","data":""}}`)}, wantMsg: "nativemsg: chunk c1: seq and total must be integers and data a string"},
		{name: "data not a string", frames: [][]byte{[]byte(`{"chunk":{"id":"c1","seq":0,"total":2,"data":[]}}`)}, wantMsg: "nativemsg: chunk c1: seq and total must be integers and data a string"},
		{name: "id not a string", frames: [][]byte{[]byte(`{"chunk":{"id":7,"seq":0,"total":2,"data":""}}`)}, wantMsg: "nativemsg: chunk has no id"},
		{name: "total 1", frames: [][]byte{chunkJSON("c1", 0, 1, "x")}, wantMsg: "nativemsg: chunk c1 has total 1; a chunked message has at least 2 pieces"},
		{name: "total -3", frames: [][]byte{chunkJSON("c1", 0, -3, "x")}, wantMsg: "nativemsg: chunk c1 has total -3; a chunked message has at least 2 pieces"},
		{name: "negative seq", frames: [][]byte{chunkJSON("c1", -1, 2, "x")}, wantMsg: "nativemsg: chunk c1 seq -1 out of order: no message in progress, want seq 0"},
		{name: "first piece not seq 0", frames: [][]byte{ok1}, wantMsg: "nativemsg: chunk c1 seq 1 out of order: no message in progress, want seq 0"},
		{name: "skipped seq", frames: [][]byte{ok0, chunkJSON("c1", 2, 3, "x")}, wantMsg: "nativemsg: chunk c1 seq 2 out of order, want seq 1; partial message discarded"},
		{name: "repeated seq", frames: [][]byte{ok0, ok0}, wantMsg: "nativemsg: chunk c1 seq 0 out of order, want seq 1; partial message discarded"},
		{name: "total changed", frames: [][]byte{ok0, chunkJSON("c1", 1, 4, "x")}, wantMsg: "nativemsg: chunk c1 total changed from 3 to 4; partial message discarded"},
		{
			name: "new id before completion", frames: [][]byte{ok0, ok1, chunkJSON("c2", 0, 2, "x")},
			wantMsg: "nativemsg: chunk c2 began before chunk c1 was complete (2 of 3 pieces); partial message discarded",
		},
		{
			name: "bad base64", frames: [][]byte{ok0, []byte(`{"chunk":{"id":"c1","seq":1,"total":3,"data":"!!!!"}}`)},
			wantMsg: "nativemsg: chunk c1 seq 1: bad base64 data: illegal base64 data at input byte 0",
		},
		{
			name: "over max after decoding", max: 5, frames: [][]byte{ok0, ok1},
			wantMsg: "nativemsg: reassembled message of 6 bytes exceeds the 5-byte limit",
		},
		{
			name: "over max before decoding", max: 5, frames: [][]byte{chunkJSON("c1", 0, 2, strings.Repeat("x", 1000))},
			wantMsg: "nativemsg: reassembled message of 1000 bytes exceeds the 5-byte limit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := nativemsg.Assembler{Max: tt.max}
			last := len(tt.frames) - 1
			for i, f := range tt.frames[:last] {
				_, _, err := a.Add(f)
				noErr(t, err, "frame %d", i)
			}
			msg, done, err := a.Add(tt.frames[last])
			if err == nil || err.Error() != tt.wantMsg {
				t.Fatalf("got error %v, want %q", err, tt.wantMsg)
			}
			if msg != nil || done {
				t.Errorf("with the error got msg %q, done %v; want nil, false", msg, done)
			}
			// The partial message is gone: the next piece of the old run is
			// out of order, and a fresh message assembles cleanly.
			if _, _, err := a.Add(chunkJSON("c1", 2, 3, "ghi")); err == nil {
				t.Error("old run continued after the error, want it discarded")
			}
			a.Max = 0
			if _, _, err := a.Add(chunkJSON("c9", 0, 2, "fresh ")); err != nil {
				t.Fatalf("fresh message seq 0: %v", err)
			}
			msg, done, err = a.Add(chunkJSON("c9", 1, 2, "start"))
			if err != nil || !done || string(msg) != "fresh start" {
				t.Errorf("fresh message: got %q, %v, %v; want %q, true, nil", msg, done, err, "fresh start")
			}
		})
	}
}

func TestAssemblerTooLargeIsTyped(t *testing.T) {
	a := nativemsg.Assembler{Max: 4}
	_, _, err := a.Add(chunkJSON("c1", 0, 2, "hello"))
	var tl *nativemsg.TooLargeError
	if !errors.As(err, &tl) || tl.Max != 4 {
		t.Errorf("got %v, want *TooLargeError with Max 4", err)
	}
}

func TestIsChunk(t *testing.T) {
	tests := []struct {
		frame string
		want  bool
	}{
		{`{"chunk":{"id":"c1","seq":0,"total":2,"data":""}}`, true},
		{` { "chunk" : {} } `, true},
		{`{"id":3,"chunk":{}}`, true},
		{`{"chunk":"x"}`, false},
		{`{"chunk":null}`, false},
		{`{"id":1,"result":{"chunk":{}}}`, false},
		{`{"id":1,"method":"ping"}`, false},
		{`[{"chunk":{}}]`, false},
		{``, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := nativemsg.IsChunk([]byte(tt.frame)); got != tt.want {
			t.Errorf("IsChunk(%q): got %v, want %v", tt.frame, got, tt.want)
		}
	}
}
