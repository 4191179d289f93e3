package nativemsg

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

const (
	// ChunkPiece is the number of message bytes each chunk frame carries
	// before base64 encoding: 786,240, the most whose encoding (1,048,320
	// bytes) plus the envelope reserve still fits in [MaxOutbound]. It is a
	// multiple of 3, so no piece but the last carries base64 padding.
	ChunkPiece = (MaxOutbound - chunkEnvelopeReserve) / 4 * 3

	// MaxMessage is the largest message that [Writer.WriteMessage] will chunk
	// and an [Assembler] will reassemble by default: 64 MiB, the extension's
	// limit.
	MaxMessage = protocol.MaxMessage

	// chunkEnvelopeReserve bounds the JSON around a piece's base64 data. The
	// longest envelope possible (20-digit id, seq and total) is 106 bytes.
	chunkEnvelopeReserve = 256
)

// lastChunkID numbers chunked messages; ids are unique per process.
var lastChunkID atomic.Uint64

// Splitter cuts a message too large for one frame into chunk frame bodies:
//
//	{"chunk":{"id":"c17","seq":0,"total":3,"data":"<base64>"}}
//
// Each body carries at most [ChunkPiece] message bytes and is at most
// [MaxOutbound] bytes long. Ids ("c1", "c2", …) come from one process-wide
// counter, so they are unique across all Splitters in the process. The zero
// value is ready to use and safe for concurrent use.
type Splitter struct {
	// Max is the largest message Split accepts; zero means [MaxMessage].
	Max int
}

// Split returns the chunk frame bodies that carry msg, in order. A message
// that fits in one piece needs no chunking and is refused, as is one over the
// limit (with a [*TooLargeError]).
func (s *Splitter) Split(msg []byte) ([][]byte, error) {
	if limit := limitOr(s.Max, MaxMessage); len(msg) > limit {
		return nil, &TooLargeError{Len: int64(len(msg)), Max: int64(limit), what: "message"}
	}
	if len(msg) <= ChunkPiece {
		return nil, fmt.Errorf("nativemsg: message of %d bytes fits in one %d-byte piece; send it as one frame", len(msg), ChunkPiece)
	}
	id := lastChunkID.Add(1)
	total := (len(msg) + ChunkPiece - 1) / ChunkPiece
	frames := make([][]byte, 0, total)
	for seq := range total {
		piece := msg[seq*ChunkPiece : min((seq+1)*ChunkPiece, len(msg))]
		frames = append(frames, appendChunk(nil, id, seq, total, piece))
	}
	return frames, nil
}

// appendChunk appends the chunk envelope for one piece to dst.
func appendChunk(dst []byte, id uint64, seq, total int, piece []byte) []byte {
	dst = slices.Grow(dst, chunkEnvelopeReserve+base64.StdEncoding.EncodedLen(len(piece)))
	dst = append(dst, `{"chunk":{"id":"c`...)
	dst = strconv.AppendUint(dst, id, 10)
	dst = append(dst, `","seq":`...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(total), 10)
	dst = append(dst, `,"data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, piece)
	return append(dst, `"}}`...)
}

// IsChunk reports whether frame looks like a chunk envelope: a JSON object
// whose top-level "chunk" member is an object. It is a cheap check that does
// not validate the frame; [Assembler.Add] does.
func IsChunk(frame []byte) bool {
	return gjson.GetBytes(frame, "chunk").IsObject()
}

// limitOr returns n, or def when n is zero or less.
func limitOr(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}
