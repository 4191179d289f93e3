package noise

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func TestRulesPersistAndHide(t *testing.T) {
	dir := t.TempDir()
	r := Open(dir)
	require.NoError(t, r.Err())
	assert.Empty(t, r.List())
	assert.False(t, r.Hide("ResizeObserver loop limit exceeded", ""))

	_, err := r.Add("ResizeObserver loop", now)
	require.NoError(t, err)
	_, err = r.Add(`^https://ads\.example/`, now)
	require.NoError(t, err)
	assert.True(t, r.Hide("ResizeObserver loop limit exceeded", ""))
	assert.True(t, r.Hide("Uncaught TypeError: x", "https://ads.example/tag.js"), "by the source URL")
	assert.False(t, r.Hide("Uncaught TypeError: x", "https://app.example/main.js"))
	assert.False(t, r.Hide("resizeobserver loop", ""), "patterns are case-sensitive unless (?i)")

	st, err := os.Stat(filepath.Join(dir, FileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	again := Open(dir)
	require.NoError(t, again.Err())
	got := again.List()
	require.Len(t, got, 2)
	assert.Equal(t, Rule{Pattern: "ResizeObserver loop", AddedAt: now}, got[0])
	assert.True(t, again.Hide("ResizeObserver loop", ""))
	assert.Equal(t, uint64(1), again.List()[0].Hidden)

	require.NoError(t, again.Remove("ResizeObserver loop"))
	assert.False(t, again.Hide("ResizeObserver loop", ""))
	assert.Len(t, Open(dir).List(), 1)
}

func TestRulesRefuse(t *testing.T) {
	r := Open(t.TempDir())
	for _, p := range []string{"", "(", "a*", ".*", strings.Repeat("x", MaxPattern+1)} {
		_, err := r.Add(p, now)
		assert.ErrorIs(t, err, ErrInvalid, "%q", p)
	}
	_, err := r.Add("x", now)
	require.NoError(t, err)
	_, err = r.Add("x", now)
	assert.ErrorIs(t, err, ErrExists)
	assert.ErrorIs(t, r.Remove("y"), ErrNotFound)
	for i := 1; i < MaxRules; i++ {
		_, err := r.Add("rule"+strings.Repeat("z", i), now)
		require.NoError(t, err)
	}
	_, err = r.Add("one too many", now)
	assert.ErrorIs(t, err, ErrFull)
}

func TestBrokenFileAppliesNoRule(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(`{"version":1,"rules":[{"pattern":"("}]}`), 0o600))
	r := Open(dir)
	assert.Error(t, r.Err())
	assert.Empty(t, r.List())
	_, err := r.Add("fine", now)
	require.NoError(t, err, "an add rewrites the file")
	assert.NoError(t, r.Err())
	assert.Len(t, Open(dir).List(), 1)
}
