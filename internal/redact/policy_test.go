package redact

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultPolicy(t *testing.T) {
	e := defaultEngine(t)
	assert.Equal(t, DefaultVersion, e.PolicyVersion())
	assert.Equal(t, int64(DefaultMaxInputBytes), e.MaxInputBytes())
}

// TestLoadPolicyErrors: every broken policy is an ErrPolicy error, and
// the error never quotes the file's values.
func TestLoadPolicyErrors(t *testing.T) {
	tests := map[string]string{
		"not json":          `{"version":`,
		"unknown field":     `{"version":"v","disable_all":true}`,
		"trailing data":     `{"version":"v"} {"version":"w"}`,
		"no version":        `{"user_patterns":[]}`,
		"unknown class":     `{"version":"v","disable":["jwt","nope"]}`,
		"disable user":      `{"version":"v","disable":["user"]}`,
		"bad regex":         `{"version":"v","user_patterns":[{"label":"x","regex":"(SECRETVALUE"}]}`,
		"empty match":       `{"version":"v","user_patterns":[{"label":"x","regex":"a*"}]}`,
		"bad label":         `{"version":"v","user_patterns":[{"label":"Has Space","regex":"x"}]}`,
		"empty secret key":  `{"version":"v","secret_keys":["-_"]}`,
		"negative max":      `{"version":"v","max_input_bytes":-1}`,
		"wrong type":        `{"version":1}`,
		"null is no policy": `null`,
	}
	dir := t.TempDir()
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
			require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
			_, err := LoadPolicy(path)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrPolicy)
			assert.NotContains(t, err.Error(), "SECRETVALUE")
		})
	}
	_, err := LoadPolicy(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, ErrPolicy, "a missing file fails closed too")

	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, []byte(`{"version":"v","secret_keys":["`+strings.Repeat("a", 2<<20)+`"]}`), 0o600))
	_, err = LoadPolicy(big)
	assert.ErrorIs(t, err, ErrPolicy)
}

// TestNewRejectsInvalidPolicy: New validates policies built in code too.
func TestNewRejectsInvalidPolicy(t *testing.T) {
	_, err := New(Policy{})
	assert.ErrorIs(t, err, ErrPolicy)
	_, err = New(Policy{Version: "v", UserPatterns: []Pattern{{Label: "x", Regex: "[unclosed"}}})
	assert.ErrorIs(t, err, ErrPolicy)
}

// TestPolicyFileRoundTrip: a policy marshals to a file LoadPolicy accepts.
func TestPolicyFileRoundTrip(t *testing.T) {
	p := Policy{Version: "acme/3", Disable: []Class{IBAN}, UserPatterns: []Pattern{{Label: "ticket", Regex: `TKT-(\d{5})`}},
		SecretKeys: []string{"x-acme"}, AllowKeys: []string{"page_token"}, MaxInputBytes: 1 << 20}
	raw, err := json.Marshal(p)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "policy.json")
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	got, err := LoadPolicy(path)
	require.NoError(t, err)
	assert.Equal(t, p, got)

	e, err := New(got)
	require.NoError(t, err)
	out, st, err := e.Text("ref TKT-12345, IBAN DE89370400440532013000, page_token=abc, x-acme: v")
	require.NoError(t, err)
	assert.Equal(t, "ref TKT-"+m("ticket")+", IBAN DE89370400440532013000, page_token=abc, x-acme: "+m("password"), out,
		"group 1 only; iban disabled; allow and secret keys")
	assert.Equal(t, map[string]int{"ticket": 1, "password": 1}, st.ByClass)
}

// TestUserPatternsAndMarkers: user patterns never match inside markers, so
// a broad pattern cannot break them (and stays idempotent).
func TestUserPatternsAndMarkers(t *testing.T) {
	e, err := New(Policy{Version: "v", UserPatterns: []Pattern{{Label: "caps", Regex: `[A-Z]{4,}`}}})
	require.NoError(t, err)
	once, _, err := e.Text("ABCD token " + testJWT + " EFGH")
	require.NoError(t, err)
	assert.Equal(t, m("caps")+" token "+m("jwt")+" "+m("caps"), once)
	twice, st, err := e.Text(once)
	require.NoError(t, err)
	assert.Equal(t, once, twice)
	assert.Zero(t, st.Redacted)
}

// TestFailClosed: every way the engine can refuse ends in ErrBlocked and no
// output.
func TestFailClosed(t *testing.T) {
	p := DefaultPolicy()
	p.MaxInputBytes = 64
	small, err := New(p)
	require.NoError(t, err)
	big := strings.Repeat("x", 65)

	var nilEngine *Engine
	cases := map[string]func() (any, error){
		"oversize text":    func() (any, error) { o, _, err := small.Text(big); return o, err },
		"oversize json":    func() (any, error) { o, _, err := small.JSON([]byte(`"` + big + `"`)); return o, err },
		"oversize url":     func() (any, error) { o, _, err := small.URL("https://x/?" + big); return o, err },
		"oversize form":    func() (any, error) { o, _, err := small.Form(big); return o, err },
		"oversize headers": func() (any, error) { o, _, err := small.Headers(map[string]string{"a": big}); return o, err },
		"oversize value":   func() (any, error) { o, _, err := small.Value(map[string]any{"a": []any{big}}); return o, err },
		"oversize body":    func() (any, error) { o, _, err := small.Body("text/plain", []byte(big)); return o, err },
		"nil engine":       func() (any, error) { o, _, err := nilEngine.Text("password=x"); return o, err },
		"nil engine json":  func() (any, error) { o, _, err := nilEngine.JSON([]byte(`{}`)); return o, err },
		"panic inside":     func() (any, error) { o, _, err := small.Value(panicky{}); return o, err },
		"unmarshalable":    func() (any, error) { o, _, err := small.Value(make(chan int)); return o, err },
		"too deep": func() (any, error) {
			var v any = "x"
			for range maxDepth + 2 {
				v = []any{v}
			}
			o, _, err := defaultEngine(t).Value(v)
			return o, err
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := f()
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrBlocked), "got %v", err)
			assert.Empty(t, out)
			assert.NotContains(t, err.Error(), "password=x")
		})
	}
}

// panicky panics while being marshalled, standing in for any engine bug.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("boom with secret hunter2") }

func TestPanicMessageNotLeaked(t *testing.T) {
	_, _, err := defaultEngine(t).Value(panicky{})
	require.ErrorIs(t, err, ErrBlocked)
	assert.NotContains(t, err.Error(), "hunter2")
}

// TestDisable: a disabled class is left alone; the others still work.
func TestDisable(t *testing.T) {
	p := DefaultPolicy()
	p.Disable = []Class{Card, Password}
	e, err := New(p)
	require.NoError(t, err)
	out, _, err := e.Text("4111111111111111 password=x " + awsKey + " Authorization: Bearer abc123def456ghi")
	require.NoError(t, err)
	assert.Equal(t, "4111111111111111 password=x "+m("aws_access_key")+" Authorization: Bearer "+m("bearer"), out)
}

func TestCounters(t *testing.T) {
	c := NewCounters("v1")
	e := defaultEngine(t)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, st, err := e.Text("password=x " + testJWT)
			c.Observe(StageServer, st, err)
			if i%10 == 0 {
				c.Blocked(StageEgress)
			}
			_ = c.Snapshot()
		}()
	}
	wg.Wait()
	c.Add(StageSource, Stats{})
	c.SetPolicyVersion("v2")
	s := c.Snapshot()
	assert.Equal(t, "v2", s.PolicyVersion)
	assert.Equal(t, int64(100), s.RedactedCount)
	assert.Equal(t, int64(5), s.BlockedCount)
	assert.Equal(t, map[string]int64{"password": 50, "jwt": 50}, s.ByClass)
	assert.Equal(t, map[Stage]StageCount{StageServer: {Redacted: 100}, StageEgress: {Blocked: 5}}, s.ByStage)

	raw, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"policy_version":"v2","redacted_count":100,"blocked_count":5`)

	s.ByClass["jwt"] = 0
	assert.Equal(t, int64(50), c.Snapshot().ByClass["jwt"], "snapshots are copies")
}

// TestConcurrentEngine: one engine serves many goroutines (run with -race).
func TestConcurrentEngine(t *testing.T) {
	e := testEngine(t)
	doc := benchDoc(16 << 10)
	want, _, err := e.JSON(doc)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				got, _, err := e.JSON(doc)
				assert.NoError(t, err)
				assert.Equal(t, string(want), string(got))
			}
		}()
	}
	wg.Wait()
}
