package nativemsg_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"
)

// noErr stops the test when err is not nil; the arguments say what failed.
func noErr(t testing.TB, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: got error %v, want none", fmt.Sprintf(format, args...), err)
	}
}

// frame returns body with its native-endian length prefix.
func frame(body []byte) []byte {
	return append(binary.NativeEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// stream concatenates the frames of bodies.
func stream(bodies ...string) []byte {
	var out []byte
	for _, b := range bodies {
		out = append(out, frame([]byte(b))...)
	}
	return out
}

// header returns a bare length prefix declaring n bytes.
func header(n uint32) []byte {
	return binary.NativeEndian.AppendUint32(nil, n)
}

// chunkJSON builds a chunk frame body by hand, data given in clear.
func chunkJSON(id string, seq, total int, data string) []byte {
	return []byte(fmt.Sprintf(`{"chunk":{"id":%q,"seq":%d,"total":%d,"data":%q}}`,
		id, seq, total, base64.StdEncoding.EncodeToString([]byte(data))))
}

// payload returns n deterministic pseudo-random bytes for seed.
func payload(seed uint64, n int) []byte {
	b := make([]byte, n)
	rng := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16)})
	_, _ = rng.Read(b)
	return b
}

// jsonMessage returns a JSON object of exactly size bytes (size >= 64) whose
// padding repeats a pattern drawn for g and i, so a message mixed with another
// is detected.
func jsonMessage(g, i, size int) []byte {
	prefix := fmt.Sprintf(`{"g":%d,"i":%d,"pad":"`, g, i)
	rng := rand.New(rand.NewPCG(uint64(g), uint64(i)))
	pattern := make([]byte, 61)
	for k := range pattern {
		pattern[k] = byte('a' + rng.IntN(26))
	}
	pad := size - len(prefix) - len(`"}`)
	b := make([]byte, 0, size)
	b = append(b, prefix...)
	b = append(b, bytes.Repeat(pattern, pad/len(pattern)+1)[:pad]...)
	return append(b, `"}`...)
}
