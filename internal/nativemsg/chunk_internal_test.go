package nativemsg

import (
	"math"
	"testing"
)

// TestChunkEnvelopeWorstCase checks that a full piece with the longest
// possible id, seq and total still fits in one frame.
func TestChunkEnvelopeWorstCase(t *testing.T) {
	piece := make([]byte, ChunkPiece)
	f := appendChunk(nil, math.MaxUint64, math.MaxInt, math.MaxInt, piece)
	if len(f) > MaxOutbound {
		t.Fatalf("worst-case chunk frame: got %d bytes, want at most %d", len(f), MaxOutbound)
	}
	if envelope := len(f) - 4*ChunkPiece/3; envelope > chunkEnvelopeReserve {
		t.Errorf("envelope: got %d bytes, want at most the %d reserved", envelope, chunkEnvelopeReserve)
	}
	if ChunkPiece%3 != 0 {
		t.Errorf("ChunkPiece %d is not a multiple of 3", ChunkPiece)
	}
}
