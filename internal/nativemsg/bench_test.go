package nativemsg_test

import (
	"io"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
)

var benchSizes = []struct {
	name string
	size int
}{
	{"1KiB", 1 << 10},
	{"512KiB", 512 << 10},
}

func BenchmarkWriteFrame(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			body := jsonMessage(0, 0, bs.size)
			w := nativemsg.NewWriter(io.Discard)
			b.SetBytes(int64(bs.size))
			b.ReportAllocs()
			for b.Loop() {
				if err := w.WriteFrame(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReadFrame(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) {
			r := nativemsg.NewReader(&loopReader{data: frame(jsonMessage(0, 0, bs.size))}, 0)
			b.SetBytes(int64(bs.size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.ReadFrame(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	msg := jsonMessage(0, 0, 5<<20)
	var s nativemsg.Splitter
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Split(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteMessage5MiB(b *testing.B) {
	msg := jsonMessage(0, 0, 5<<20)
	w := nativemsg.NewWriter(io.Discard)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.WriteMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssemble5MiB(b *testing.B) {
	msg := jsonMessage(0, 0, 5<<20)
	var s nativemsg.Splitter
	frames, err := s.Split(msg)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		var a nativemsg.Assembler
		for _, f := range frames {
			if _, _, err := a.Add(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// loopReader reads data over and over.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}
