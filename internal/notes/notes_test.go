package notes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutGetDelete(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	_, err := s.Put(Note{Key: "login.steps_v2", Value: "one\ntwo", UpdatedAt: at, By: "claude"})
	require.NoError(t, err)
	n, err := s.Get("login.steps_v2")
	require.NoError(t, err)
	assert.Equal(t, Note{Key: "login.steps_v2", Value: "one\ntwo", UpdatedAt: at, By: "claude"}, n)
	for path, mode := range map[string]os.FileMode{filepath.Join(dir, "notes"): 0o700, filepath.Join(dir, "notes", "login.steps_v2.json"): 0o600} {
		st, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, mode, st.Mode().Perm(), path)
	}
	keys, err := s.Keys()
	require.NoError(t, err)
	assert.Equal(t, []string{"login.steps_v2"}, keys)

	deleted, err := s.Put(Note{Key: "login.steps_v2"})
	require.NoError(t, err)
	assert.True(t, deleted)
	_, err = s.Get("login.steps_v2")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = s.Put(Note{Key: "login.steps_v2"})
	assert.ErrorIs(t, err, ErrNotFound, "deleting what is not there")
}

func TestKeysValidated(t *testing.T) {
	for _, k := range []string{"", ".hidden", "../up", "a/b", `a\b`, "a b", "trailing.", "ü", strings.Repeat("k", MaxKey+1)} {
		assert.ErrorIs(t, CheckKey(k), ErrKey, "%q", k)
	}
	for _, k := range []string{"a", "A-1", "x.y_z", strings.Repeat("k", MaxKey)} {
		assert.NoError(t, CheckKey(k), "%q", k)
	}
}

func TestCaps(t *testing.T) {
	s := Open(t.TempDir())
	_, err := s.Put(Note{Key: "big", Value: strings.Repeat("v", MaxValue+1)})
	assert.ErrorIs(t, err, ErrTooLarge)
	for i := range MaxNotes {
		_, err := s.Put(Note{Key: fmt.Sprintf("n%03d", i), Value: "x"})
		require.NoError(t, err)
	}
	_, err = s.Put(Note{Key: "one-more", Value: "x"})
	assert.ErrorIs(t, err, ErrFull)
	_, err = s.Put(Note{Key: "n000", Value: "replaced"})
	assert.NoError(t, err, "replacing a note is always possible")
}

func TestOversizeFileRefused(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes", "huge.json"), make([]byte, 3*MaxValue), 0o600))
	_, err := s.Get("huge")
	assert.ErrorContains(t, err, "larger than a note can be")
}
