//go:build !windows

package creds

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 27, item 5: a credentials folder or file someone else could have
// read or planted is never used. The daemon replaces it at start (0700
// folder, 0600 files, new values), logs why, and the planted value is
// refused.
func TestOpenSetReplacesWhatOthersCouldReadOrPlant(t *testing.T) {
	planted := New()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, home string)
		why   string
	}{
		{"a folder open to others", func(t *testing.T, home string) {
			require.NoError(t, os.MkdirAll(Dir(home), 0o700))
			require.NoError(t, os.Chmod(Dir(home), 0o755))
			require.NoError(t, os.WriteFile(Path(home, Agent), []byte(planted+"\n"), 0o600))
		}, "its mode 0755 lets group or others in"},
		{"a token open to others", func(t *testing.T, home string) {
			require.NoError(t, os.MkdirAll(Dir(home), 0o700))
			require.NoError(t, os.WriteFile(Path(home, Agent), []byte(planted+"\n"), 0o644))
			require.NoError(t, os.Chmod(Path(home, Agent), 0o644))
		}, "its mode 0644 lets group or others in"},
		{"a symlinked folder", func(t *testing.T, home string) {
			elsewhere := t.TempDir()
			require.NoError(t, os.Chmod(elsewhere, 0o777))
			require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "agent.token"), []byte(planted+"\n"), 0o600))
			require.NoError(t, os.Symlink(elsewhere, Dir(home)))
		}, "it is a symlink"},
		{"a symlinked token", func(t *testing.T, home string) {
			require.NoError(t, os.MkdirAll(Dir(home), 0o700))
			other := filepath.Join(t.TempDir(), "planted")
			require.NoError(t, os.WriteFile(other, []byte(planted+"\n"), 0o600))
			require.NoError(t, os.Symlink(other, Path(home, Agent)))
		}, "it is a symlink"},
		{"a token of another user", func(t *testing.T, home string) {
			if os.Geteuid() != 0 {
				t.Skip("giving a file to another user needs root (CI runs as root)")
			}
			require.NoError(t, os.MkdirAll(Dir(home), 0o700))
			require.NoError(t, os.WriteFile(Path(home, Agent), []byte(planted+"\n"), 0o600))
			require.NoError(t, os.Lchown(Path(home, Agent), 65534, 65534))
		}, "it is owned by uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			tc.setup(t, home)
			if tc.name == "a symlinked token" {
				_, err := Load(home, Agent)
				require.True(t, errors.Is(err, ErrUnsafe), "a symlinked credential is refused on read too: %v", err)
			}
			var logs bytes.Buffer
			s, err := OpenSet(home, slog.New(slog.NewTextHandler(&logs, nil)))
			require.NoError(t, err)
			require.Contains(t, logs.String(), tc.why, "the log says why")
			require.NotContains(t, logs.String(), planted, "no credential in the log")
			require.Equal(t, None, s.RoleOf(planted), "the planted credential is refused")
			require.NotEqual(t, planted, s.Value(Agent))

			di, err := os.Lstat(Dir(home))
			require.NoError(t, err)
			require.True(t, di.IsDir(), "a real folder, not a symlink")
			require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
			for _, r := range Roles {
				fi, err := os.Lstat(Path(home, r))
				require.NoError(t, err)
				require.True(t, fi.Mode().IsRegular(), "%s", r)
				require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "%s", r)
			}
		})
	}
}

// A safe folder is kept as it is: the agent credential stays.
func TestOpenSetKeepsASafeFolder(t *testing.T) {
	home := t.TempDir()
	tok, err := Ensure(home, Agent)
	require.NoError(t, err)
	var logs bytes.Buffer
	s, err := OpenSet(home, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err)
	require.Equal(t, tok, s.Value(Agent))
	require.Empty(t, logs.String())
}

// A token planted while the daemon runs (made readable by others, or a
// symlink) is not taken up: the daemon keeps its last good value.
func TestSetIgnoresAnUnsafeFileWhileRunning(t *testing.T) {
	home := t.TempDir()
	s, err := OpenSet(home, nil)
	require.NoError(t, err)
	good := s.Value(Agent)
	planted := New()
	require.NoError(t, os.Remove(Path(home, Agent)))
	require.NoError(t, os.WriteFile(Path(home, Agent), []byte(planted+"\n"), 0o644))
	require.NoError(t, os.Chmod(Path(home, Agent), 0o644))
	require.Equal(t, good, s.Value(Agent))
	require.Equal(t, None, s.RoleOf(planted))
}
