//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 34, item 6: `gasoline-host --mcp` writes only warnings and errors
// to stderr (clients show a stdio server's stderr, some as errors) unless
// asked for more with --verbose. A whole exchange — the launcher starting
// a daemon, the relay connecting, initialize, stdin's end — says nothing.
func TestMCPStderrQuietUnlessAsked(t *testing.T) {
	e := newEnv(t)
	const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"quiet","version":"1"}}}` + "\n"
	run := func(args ...string) (string, string) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = e.vars()
		cmd.Stdin = strings.NewReader(init)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Run(), "%s", errOut.String())
		return out.String(), errOut.String()
	}
	out, stderr := run("--mcp")
	require.Contains(t, out, `"serverInfo"`, "the exchange happened")
	require.Empty(t, stderr, "--mcp wrote to stderr without a warning or an error")
	_, stderr = run("--mcp", "--verbose")
	require.Contains(t, stderr, "level=INFO", "--verbose says what the relay does")
}
