// Package mcpconfig prints the configuration MCP clients need to run
// Gasoline: `gasoline-mcp` over stdio (recommended; the slim relay beside
// gasoline-host, or `gasoline-host --mcp` when it is missing), or the daemon's
// streamable HTTP endpoint with the agent credential — the real one, which
// stays valid across daemon restarts until `gasoline-host token rotate`.
// Every form is written for its client as that client documents it, and
// says what else the client needs before it runs the server (Claude
// Code's one-time approval of a project's .mcp.json, Gemini CLI's folder
// trust); clients_test.go checks each form against the client's schema
// and, where the client's CLI installs from npm, in the client itself.
// RemoteSnippet prints the HTTP forms for an agent on another machine
// (internal/remote).
package mcpconfig

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// ServerName is the name Gasoline is registered under in every client.
const ServerName = "gasoline"

// Clients lists the names --client accepts, in output order.
var Clients = []string{"claude", "codex", "gemini", "cursor", "json"}

// Target is what a snippet points at.
type Target struct {
	// Command and Args are the stdio server: gasoline-mcp (no arguments)
	// when it is beside gasoline-host, else gasoline-host --mcp.
	Command string
	Args    []string
	Host    string // absolute path of gasoline-host (the commands a snippet tells the user to run)
	URL     string // streamable HTTP endpoint, http://127.0.0.1:PORT/mcp
	Token   string // the agent credential (MCP only)
	// TokenFile is where the agent credential lives (0600).
	TokenFile string
	// Env is what the stdio command needs besides the defaults:
	// GASOLINE_HOME and GASOLINE_PORT when they are set.
	Env map[string]string
}

// Main runs `gasoline-host mcp-config [--client claude|codex|gemini|cursor|json|all] [--path BIN]`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-config", flag.ContinueOnError)
	fs.SetOutput(stderr)
	client := fs.String("client", "all", strings.Join(Clients, ", ")+" or all")
	path := fs.String("path", "", "gasoline-host binary whose gasoline-mcp to name (default: this executable)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return fmt.Errorf("mcp-config: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("mcp-config: unexpected argument %q", fs.Arg(0))
	}
	t, err := DefaultTarget(*path)
	if err != nil {
		return fmt.Errorf("mcp-config: %w", err)
	}
	if t.Command == t.Host {
		fmt.Fprintf(stderr, "mcp-config: %s is not beside gasoline-host, so these configs run %s --mcp, which starts slower "+
			"(it links the whole daemon); make build or the installer puts gasoline-mcp there\n", SlimPath(t.Host), t.Host)
	}
	names := []string{*client}
	if *client == "all" {
		names = Clients
	}
	for i, name := range names {
		s, err := Snippet(name, t)
		if err != nil {
			return fmt.Errorf("mcp-config: %w", err)
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprint(stdout, s)
	}
	return nil
}

// SlimName is the stdio relay's own binary, installed beside gasoline-host.
const SlimName = "gasoline-mcp"

// SlimPath is where gasoline-mcp belongs: beside gasoline-host at host,
// with the same suffix (".exe" on Windows).
func SlimPath(host string) string {
	return filepath.Join(filepath.Dir(host), SlimName+filepath.Ext(host))
}

// DefaultTarget names gasoline-mcp beside the gasoline-host at path
// (default: this executable), or that gasoline-host with --mcp when
// gasoline-mcp is not there, the
// daemon port from GASOLINE_PORT and the agent credential of the state
// directory (GASOLINE_HOME), creating the credential on first use so the
// snippet carries a real one.
func DefaultTarget(path string) (Target, error) {
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return Target{}, err
		}
		path = exe
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Target{}, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	port, err := state.Port()
	if err != nil {
		return Target{}, err
	}
	dir, err := state.Dir()
	if err != nil {
		return Target{}, err
	}
	tok, err := creds.Ensure(dir, creds.Agent)
	if err != nil {
		return Target{}, err
	}
	env := map[string]string{}
	for _, k := range []string{"GASOLINE_HOME", "GASOLINE_PORT"} {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		}
	}
	if env["GASOLINE_HOME"] != "" {
		env["GASOLINE_HOME"] = dir // absolute, whatever the client's working directory
	}
	cmd, args := abs, []string{"--mcp"}
	if fi, err := os.Stat(SlimPath(abs)); err == nil && fi.Mode().IsRegular() {
		cmd, args = SlimPath(abs), nil
	}
	return Target{
		Command:   cmd,
		Args:      args,
		Host:      abs,
		URL:       fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		Token:     tok,
		TokenFile: creds.Path(dir, creds.Agent),
		Env:       env,
	}, nil
}
