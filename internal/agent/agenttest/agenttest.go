// Package agenttest helps test model adapters: the secret corpus, an
// egress redactor with the corpus policy, and a recorder of the bytes a
// fake provider received.
package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// Secret is one corpus value: Value is how it is planted, Secret the part
// that must never leave.
type Secret struct {
	Class  string `json:"class"`
	Value  string `json:"value"`
	Secret string `json:"secret"`
}

// secretsDir is testdata/secrets of the repository.
func secretsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "secrets")
}

// Corpus returns the synthetic secret corpus (testdata/secrets).
func Corpus(tb testing.TB) []Secret {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(secretsDir(), "corpus.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []Secret
	if err := json.Unmarshal(raw, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Redactor returns the redaction engine with the corpus policy (the
// default rules plus the corpus's user pattern).
func Redactor(tb testing.TB) *redact.Engine {
	tb.Helper()
	p, err := redact.LoadPolicy(filepath.Join(secretsDir(), "policy.json"))
	if err != nil {
		tb.Fatal(err)
	}
	e, err := redact.New(p)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// Wire records request bodies a fake provider received.
type Wire struct {
	mu     sync.Mutex
	bodies [][]byte
}

// Add records one body.
func (w *Wire) Add(b []byte) {
	w.mu.Lock()
	w.bodies = append(w.bodies, append([]byte(nil), b...))
	w.mu.Unlock()
}

// Bodies returns the bodies received so far.
func (w *Wire) Bodies() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]byte(nil), w.bodies...)
}

// AssertNoSecret fails for every corpus secret found in any body, as
// sent or with its JSON strings decoded (so escapes hide nothing).
func AssertNoSecret(tb testing.TB, corpus []Secret, bodies [][]byte) {
	tb.Helper()
	if len(bodies) == 0 {
		tb.Fatal("no request reached the provider")
	}
	for i, b := range bodies {
		hay := string(b) + "\n" + decoded(b)
		for _, s := range corpus {
			if strings.Contains(hay, s.Secret) {
				tb.Errorf("request %d sent a %s secret %.12q…", i, s.Class, s.Secret)
			}
		}
	}
}

func decoded(raw []byte) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
			if json.Valid([]byte(x)) { // a JSON string inside a string (tool arguments)
				b.WriteString(decoded([]byte(x)))
			}
		case map[string]any:
			for k, y := range x {
				b.WriteString(k + "\n")
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return b.String()
}
