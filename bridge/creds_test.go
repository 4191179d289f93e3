//go:build !windows

package bridge

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

// Issue 27, item 5, on the real daemon: a credentials folder open to
// others with a planted agent token is replaced at start, and the planted
// token is refused on /mcp.
func TestDaemonRefusesAPlantedToken(t *testing.T) {
	dir := t.TempDir()
	planted := creds.New()
	require.NoError(t, os.MkdirAll(creds.Dir(dir), 0o700))
	require.NoError(t, os.Chmod(creds.Dir(dir), 0o755))
	require.NoError(t, os.WriteFile(creds.Path(dir, creds.Agent), []byte(planted+"\n"), 0o644))
	require.NoError(t, os.Chmod(creds.Path(dir, creds.Agent), 0o644))
	s := daemonIn(t, dir)
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(s.Port())+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+planted)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "the planted token opened /mcp")
	require.NotEqual(t, planted, s.Token())
	fi, err := os.Stat(creds.Dir(dir))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
}
