package safety

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// TestDaemonLogRedacted: the message, string, error and grouped attributes
// of every record pass the gateway; with a broken policy values are
// replaced, never written.
const (
	tGitHub = "ghp_R8x2Lq9Vt4Wm6Yp1Zs3Ka5Nb7Dc0Ef2Gh4Jk"
	tJWT    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

func TestDaemonLogRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redaction.json")
	store := redact.OpenStore(path)
	var buf bytes.Buffer
	log := slog.New(&redactingHandler{inner: slog.NewTextHandler(&buf, nil), gw: &redact.Gateway{Engine: store.Engine}})
	log.With("url", "https://a.test/?access_token="+tGitHub).WithGroup("g").Info("page said token "+tGitHub,
		"err", errors.New("Bearer "+tJWT), "n", 3, slog.Group("h", "auth", "Bearer "+tJWT))
	out := buf.String()
	require.NotContains(t, out, tGitHub)
	require.NotContains(t, out, tJWT)
	require.Contains(t, out, "n=3")

	require.NoError(t, os.WriteFile(path, []byte(`{"version":`), 0o600))
	require.Error(t, store.Reload())
	buf.Reset()
	log.Info("page said token "+tGitHub, "err", errors.New("x "+tGitHub))
	require.NotContains(t, buf.String(), tGitHub)
	require.True(t, strings.Contains(buf.String(), logBlocked), buf.String())
}
