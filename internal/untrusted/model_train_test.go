package untrusted

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "TestTrainModel: train the model and write model.bin")

// modelThreshold is the log-odds at and over which the model flags a
// sentence (of six words or more that holds an agentive word: rules.go),
// chosen by measuring TestAttackHoldout on attacks-holdout4.txt against
// TestBenignCorpus: 3.0 flags 69% of it with 5 false flags (3 in
// testdata/ui.txt), 4.0 67% with 2 (2, none in documentation), 5.0 64%
// with 2.
const modelThreshold = 4.0

// modelBits is how many bits of a feature's hash the model keeps.
const modelBits = 16

// example is one sentence's features and whether it asks something of an
// agent.
type example struct {
	feats  []uint32
	pos    bool
	weight float64 // of a benign example: interface text counts more (uiWeight)
}

// uiWeight is how much an interface-text sentence counts against the
// attacks, beside a sentence of documentation: interface text is short
// and imperative, like an attack, and there is little of it.
const uiWeight = 8

// sentenceWords returns the words of each sentence of text, folded, as
// Classify reads them.
func sentenceWords(text string) [][]string {
	var out [][]string
	sentences(lowerASCII(fold(text).s), func(_, _ int, words []string) {
		if realWords(words) >= minModelWords {
			out = append(out, cloneWords(words))
		}
	})
	return out
}

func cloneWords(s []string) []string { return append([]string(nil), s...) }

func featuresOf(words []string) []uint32 {
	var fs []uint32
	features(words, func(h uint32) { fs = append(fs, h&(1<<modelBits-1)) })
	return fs
}

// trainingHalf is the paragraphs of a source the model trains on: those in
// even blocks of 50 (TestBenignCorpus measures on the first 30,000 lines of
// each source, trainedOn says which of those the model saw).
func trainingHalf(s benignSource) benignSource {
	out := benignSource{name: s.name}
	for i, p := range s.paras {
		if trainedOn(i) {
			out.paras = append(out.paras, p)
		}
	}
	return out
}

func trainedOn(para int) bool { return (para/50)%2 == 0 }

// TestTrainModel trains the linear model (go generate runs it with
// -update): logistic regression by AdaGrad on the sentences of the attack
// corpora (attacks.txt, flag.txt and the first three held-out sets; the
// fourth stays unseen) against the sentences of documentation and
// interface text (the Go distribution's doc comments, the manual pages,
// testdata/ok.txt, and half of testdata/ui.txt, of Python's docstrings and
// of Node's Markdown documents: trainedOn). Every tenth benign sentence is
// held back, and the log says how many of those score over the threshold.
// Without -update it only checks that model.bin decodes.
func TestTrainModel(t *testing.T) {
	if !*update {
		if model() == nil {
			t.Fatal("model.bin does not decode: run go generate ./internal/untrusted")
		}
		return
	}
	var train, held []example
	for _, name := range []string{"attacks.txt", "attacks-holdout.txt", "attacks-holdout2.txt", "attacks-holdout3.txt"} {
		for _, a := range attacksIn(t, name) {
			for _, ws := range sentenceWords(a.text) {
				train = append(train, example{featuresOf(ws), true, 1})
			}
		}
	}
	for _, l := range corpusSeeds(&testing.F{}, "flag.txt") {
		for _, ws := range sentenceWords(l) {
			train = append(train, example{featuresOf(ws), true, 1})
		}
	}
	npos := len(train)
	n := 0
	py, md := pythonDocstrings(t, 60000), markdownDocs(t, "/usr/lib/node_modules", 60000)
	ui := benignSource{name: "ui", paras: append(okLines(t), trainingHalf(benignSource{paras: corpus(t, "ui.txt")}).paras...)}
	for _, src := range []benignSource{goDocComments(t, 60000), manPages(t, 20000), ui, trainingHalf(py), trainingHalf(md)} {
		weight := 1.0
		if src.name == "ui" {
			weight = uiWeight
		}
		for _, p := range src.paras {
			for _, ws := range sentenceWords(p) {
				e := example{featuresOf(ws), false, weight}
				if n++; n%10 == 0 {
					held = append(held, e)
				} else {
					train = append(train, e)
				}
			}
		}
	}
	nneg := len(train) - npos
	t.Logf("training on %d attack and %d benign sentences; %d benign held back", npos, nneg, len(held))

	w := make([]float64, 1<<modelBits)
	g2 := make([]float64, 1<<modelBits)
	var bias, gb2 float64
	posWeight := math.Min(float64(nneg)/float64(npos), 60)
	const (
		rate   = 0.3
		l2     = 1e-5
		epochs = 12
	)
	rng := rand.New(rand.NewPCG(1, 2))
	for epoch := 0; epoch < epochs; epoch++ {
		rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
		for _, e := range train {
			z := bias
			for _, f := range e.feats {
				z += w[f]
			}
			p := 1 / (1 + math.Exp(-z))
			y, wt := 0.0, e.weight
			if e.pos {
				y, wt = 1, posWeight
			}
			g := (p - y) * wt
			for _, f := range e.feats {
				gr := g + l2*w[f]
				g2[f] += gr * gr
				w[f] -= rate * gr / math.Sqrt(g2[f]+1e-8)
			}
			gb2 += g * g
			bias -= rate * g / math.Sqrt(gb2+1e-8)
		}
	}
	maxW := 0.0
	for _, v := range w {
		maxW = math.Max(maxW, math.Abs(v))
	}
	scale := maxW / 127
	q := make([]int8, len(w))
	for i, v := range w {
		q[i] = int8(math.Round(v / scale))
	}
	m := &linearModel{bits: modelBits, scale: float32(scale), bias: float32(bias), w: q}
	score := func(e example) float32 {
		s := m.bias
		for _, f := range e.feats {
			s += float32(m.w[f]) * m.scale
		}
		return s
	}
	m.threshold = modelThreshold
	over := 0
	for _, e := range held {
		if score(e) >= m.threshold {
			over++
		}
	}
	t.Logf("%d of %d held-back benign sentences score over the threshold", over, len(held))
	hit := 0
	for _, e := range train {
		if e.pos && score(e) >= m.threshold {
			hit++
		}
	}
	t.Logf("threshold %.3f (log-odds); %d of %d attack sentences of the training set over it", m.threshold, hit, npos)
	if err := os.WriteFile("model.bin", encodeModel(modelBits, m.scale, m.bias, m.threshold, m.w), 0o644); err != nil {
		t.Fatal(err)
	}
}
