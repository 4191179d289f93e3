package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// secretsDir holds the synthetic corpus (testdata/secrets/README.md).
var secretsDir = filepath.Join("..", "..", "testdata", "secrets")

// corpusEntry is one value of corpus.json.
type corpusEntry struct {
	Class  string `json:"class"`
	Value  string `json:"value"`
	Secret string `json:"secret"`
}

// negativeEntry is one value of negatives.json.
type negativeEntry struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

func loadJSON[T any](t testing.TB, name string) []T {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(secretsDir, name))
	require.NoError(t, err)
	var v []T
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func loadCorpus(t testing.TB) []corpusEntry      { return loadJSON[corpusEntry](t, "corpus.json") }
func loadNegatives(t testing.TB) []negativeEntry { return loadJSON[negativeEntry](t, "negatives.json") }

// testEngine returns an engine for the corpus policy (default rules plus
// the employee_id user pattern).
func testEngine(t testing.TB) *Engine {
	t.Helper()
	p, err := LoadPolicy(filepath.Join(secretsDir, "policy.json"))
	require.NoError(t, err)
	e, err := New(p)
	require.NoError(t, err)
	return e
}

// defaultEngine returns an engine for DefaultPolicy.
func defaultEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(DefaultPolicy())
	require.NoError(t, err)
	return e
}
