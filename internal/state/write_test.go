package state

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// WritePrivate makes the folder (0700), writes the file (0600), replaces
// an older one whole and leaves no temporary file behind, durable or not.
func TestWritePrivate(t *testing.T) {
	for _, durable := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "pending")
		path := filepath.Join(dir, "a.json")
		require.NoError(t, WritePrivate(path, []byte(`{"v":1}`), durable))
		require.NoError(t, WritePrivate(path, []byte(`{"v":2}`), durable))
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, `{"v":2}`, string(raw))
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, ents, 1, "no temporary file is left")
		if runtime.GOOS != "windows" {
			fi, _ := os.Stat(path)
			require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			di, _ := os.Stat(dir)
			require.Equal(t, os.FileMode(0o700), di.Mode().Perm())
		}
	}
}
