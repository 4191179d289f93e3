package guardcli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// home gives each test its own state directory; terminal says whether
// stdin stands for a person at a terminal.
func home(t *testing.T, terminal bool) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("GASOLINE_HOME", dir)
	t.Setenv("GASOLINE_POLICY", "")
	t.Setenv(redact.EnvPolicy, "")
	was := isTerminal
	isTerminal = func(io.Reader) bool { return terminal }
	t.Cleanup(func() { isTerminal = was })
	return dir
}

func run(t *testing.T, redaction bool, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errw strings.Builder
	err := Main(t.Context(), redaction, args, strings.NewReader(stdin), &out, &errw)
	return out.String(), errw.String(), err
}

func TestPolicyAddShowRemove(t *testing.T) {
	dir := home(t, true)
	_, prompt, err := run(t, false, "y\n", "add", "allow", "mutating", "interact.*", "http://127.0.0.1:*")
	require.NoError(t, err)
	require.Contains(t, prompt, "adds: Mutating calls of every interact mode on http://127.0.0.1:* run without asking you")
	require.Contains(t, prompt, "Change it? [y/N]")
	p, err := policy.Load(filepath.Join(dir, policy.FileName))
	require.NoError(t, err)
	require.Equal(t, 1, p.Version)
	require.Len(t, p.Rules, 1)

	out, _, err := run(t, false, "")
	require.NoError(t, err)
	require.Contains(t, out, "  1  Mutating calls of every interact mode on http://127.0.0.1:* run without asking you")

	_, _, err = run(t, false, "n\n", "remove", "1")
	require.ErrorIs(t, err, errNotChanged)
	_, prompt, err = run(t, false, "yes\n", "remove", "1")
	require.NoError(t, err)
	require.Contains(t, prompt, "removes: Mutating calls")
	p, _ = policy.Load(filepath.Join(dir, policy.FileName))
	require.Empty(t, p.Rules)
	require.Equal(t, 2, p.Version)

	_, _, err = run(t, false, "y\n", "add", "allow", "nonsense", "*", "*")
	require.Error(t, err, "an invalid rule is refused")
	_, _, err = run(t, false, "y\n", "remove", "7")
	require.ErrorContains(t, err, "no rule")
}

// Without a terminal nothing changes: an agent's shell tool has none.
func TestChangesNeedATerminal(t *testing.T) {
	dir := home(t, false)
	_, _, err := run(t, false, "y\n", "add", "allow", "*", "*", "*")
	require.ErrorContains(t, err, "must be run by a person at a terminal")
	_, err = os.Stat(filepath.Join(dir, policy.FileName))
	require.True(t, os.IsNotExist(err), "nothing was saved")
	_, _, err = run(t, true, "y\n", "add", "acct-[0-9]+")
	require.ErrorContains(t, err, "must be run by a person at a terminal")
	out, _, err := run(t, false, "")
	require.NoError(t, err, "reading needs no terminal")
	require.Contains(t, out, "no rules")
}

func TestRedactionAddRemove(t *testing.T) {
	dir := home(t, true)
	_, _, err := run(t, true, "y\n", "add", "acct-[0-9]+")
	require.NoError(t, err)
	out, _, err := run(t, true, "", "show")
	require.NoError(t, err)
	require.Contains(t, out, "user_1     acct-[0-9]+")
	_, prompt, err := run(t, true, "y\n", "remove", "user_1")
	require.NoError(t, err)
	require.Contains(t, prompt, `removes the pattern user_1 "acct-[0-9]+"`)
	p, err := redact.OpenStore(filepath.Join(dir, redact.FileName)).Policy()
	require.NoError(t, err)
	require.Empty(t, p.UserPatterns)
	_, _, err = run(t, true, "y\n", "remove", "user_9")
	require.ErrorContains(t, err, "no user pattern")
}
