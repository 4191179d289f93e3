package creds

import (
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnsureIsStableAndRaceFree(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tok, err := Ensure(dir, Agent)
			require.NoError(t, err)
			got[i] = tok
		})
	}
	wg.Wait()
	for _, tok := range got {
		require.Equal(t, got[0], tok, "racing creators must agree on one credential")
	}
	again, err := Ensure(dir, Agent)
	require.NoError(t, err)
	require.Equal(t, got[0], again, "the agent credential is stable")
	fi, err := os.Stat(Path(dir, Agent))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	di, err := os.Stat(Dir(dir))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	left, _ := os.ReadDir(Dir(dir))
	require.Len(t, left, 1, "no temp files left behind")
}

func TestLoadRefusesWhatIsNotACredential(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, Approver)
	require.True(t, errors.Is(err, ErrMissing), "%v", err)
	require.NoError(t, os.MkdirAll(Dir(dir), 0o700))
	for _, bad := range []string{"", "short", "zz" + New()[2:], New() + "00"} {
		require.NoError(t, os.WriteFile(Path(dir, Approver), []byte(bad), 0o600))
		_, err := Load(dir, Approver)
		require.Error(t, err, "%q", bad)
		require.False(t, errors.Is(err, ErrMissing))
	}
}

func TestSetKnowsEachRoleAndFollowsRotation(t *testing.T) {
	dir := t.TempDir()
	first, err := Ensure(dir, Agent)
	require.NoError(t, err)
	s, err := OpenSet(dir, nil)
	require.NoError(t, err)
	require.Equal(t, first, s.Value(Agent), "the daemon keeps the install's agent credential")
	seen := map[string]bool{}
	for _, r := range Roles {
		v := s.Value(r)
		require.Len(t, v, 64)
		require.False(t, seen[v], "roles share a credential")
		seen[v] = true
		require.Equal(t, r, s.RoleOf(v))
		onDisk, err := Load(dir, r)
		require.NoError(t, err)
		require.Equal(t, v, onDisk)
	}
	require.Equal(t, None, s.RoleOf(""))
	require.Equal(t, None, s.RoleOf(first[:63]))

	// A second daemon start: new link and approver, same agent.
	s2, err := OpenSet(dir, nil)
	require.NoError(t, err)
	require.Equal(t, first, s2.Value(Agent))
	require.NotEqual(t, s.Value(Link), s2.Value(Link))
	require.NotEqual(t, s.Value(Approver), s2.Value(Approver))

	// Rotation takes effect in the running daemon at once.
	rotated, err := Rotate(dir, Agent)
	require.NoError(t, err)
	require.Equal(t, Agent, s2.RoleOf(rotated))
	require.Equal(t, None, s2.RoleOf(first), "the old agent credential is dead after a rotation")

	// A deleted file is recreated; the file stays the truth.
	require.NoError(t, os.Remove(Path(dir, Agent)))
	now := s2.Value(Agent)
	require.NotEqual(t, rotated, now)
	onDisk, err := Load(dir, Agent)
	require.NoError(t, err)
	require.Equal(t, now, onDisk)
}
