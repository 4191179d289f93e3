package untrusted

import (
	_ "embed"
	"encoding/binary"
	"math"
	"sync"
)

// The rules recognise the families in the words the literature uses; a
// small linear model reads a sentence for what it asks in other words. It
// is logistic regression over hashed features of a folded sentence — its
// words, its pairs of words, its first word (where an imperative sits) —
// trained by TestTrainModel (`go generate` runs it with -update) on the
// attack corpora in testdata/ against documentation (the Go distribution's
// doc comments, manual pages, half of Python's docstrings and of Node's
// Markdown documents), and shipped in the binary as model.bin: 2^16
// weights of one byte each. No network, no run-time dependency.

//go:generate go test -run TestTrainModel -update .

//go:embed model.bin
var modelBin []byte

// modelMagic starts model.bin.
const modelMagic = "GSM1"

// linearModel is model.bin, read.
type linearModel struct {
	bits      uint
	scale     float32 // a weight is its byte times scale
	bias      float32
	threshold float32 // a sentence scoring at or over it is flagged
	w         []int8
}

// model returns the shipped model, or nil when model.bin is missing or
// malformed (the rules still run).
var model = sync.OnceValue(func() *linearModel { return decodeModel(modelBin) })

func decodeModel(b []byte) *linearModel {
	const head = 4 + 1 + 3*4
	if len(b) < head || string(b[:4]) != modelMagic {
		return nil
	}
	m := &linearModel{bits: uint(b[4])}
	f := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[5+4*i:])) }
	m.scale, m.bias, m.threshold = f(0), f(1), f(2)
	if m.bits < 8 || m.bits > 24 || len(b) != head+1<<m.bits {
		return nil
	}
	m.w = make([]int8, 1<<m.bits)
	for i, v := range b[head:] {
		m.w[i] = int8(v)
	}
	return m
}

// encodeModel is model.bin for weights w (1<<bits of them, already scaled
// to bytes).
func encodeModel(bits uint, scale, bias, threshold float32, w []int8) []byte {
	b := []byte(modelMagic)
	b = append(b, byte(bits))
	for _, f := range []float32{scale, bias, threshold} {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	for _, v := range w {
		b = append(b, byte(v))
	}
	return b
}

// features calls fn with the hash of every feature of a sentence's words
// (as sentences gives them): each word, each pair of neighbours and the
// first word. A word is hashed once (FNV-1a); its features are that hash
// mixed with a kind and, for a pair, with the word before.
func features(words []string, fn func(h uint32)) {
	var prev uint32 = 0x9747b28c // before the first word
	first := true
	for _, w := range words {
		if w[0] == '#' || len(w) == 1 && w != "$" && w != "@" && (w[0] < 'a' || w[0] > 'z') {
			if w != wURL && w != wNumber && w != wIBAN && w != wSnakeWord {
				continue // markup, not words: headings and quotes are everywhere in documentation
			}
		}
		h := fnv(w)
		fn(mix(h, 1))
		fn(mix(h^prev*0x85ebca6b, 2))
		if first {
			fn(mix(h, 3))
			first = false
		}
		prev = h
	}
}

// fnv is FNV-1a of a word.
func fnv(w string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	return h
}

// mix is murmur3's finaliser of h and a kind.
func mix(h, kind uint32) uint32 {
	h ^= kind * 0xcc9e2d51
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

// score is the model's log-odds that a sentence asks something of an
// agent.
func (m *linearModel) score(words []string) float32 {
	sum := m.bias
	mask := uint32(1)<<m.bits - 1
	features(words, func(h uint32) { sum += float32(m.w[h&mask]) * m.scale })
	return sum
}
