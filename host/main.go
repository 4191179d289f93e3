// Command gasoline-host is Gasoline's main binary: the native-messaging
// host Chrome launches, the daemon, the installer and the CLI. It serves
// MCP over stdio too (--mcp), but agents' configs run gasoline-mcp (mcp/),
// the same relay in a binary that links nothing else, installed beside
// this one. main only parses the mode and dispatches; each mode lives in a
// package.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gasoline-mcp/gasoline/bridge"
	"github.com/gasoline-mcp/gasoline/internal/approvecli"
	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/doctor"
	"github.com/gasoline-mcp/gasoline/internal/guardcli"
	"github.com/gasoline-mcp/gasoline/internal/install"
	"github.com/gasoline-mcp/gasoline/internal/mcpconfig"
	"github.com/gasoline-mcp/gasoline/internal/mcprelay"
	"github.com/gasoline-mcp/gasoline/internal/nativehost"
	"github.com/gasoline-mcp/gasoline/internal/remote"
	"github.com/gasoline-mcp/gasoline/internal/service"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gasoline-host: %v\n", err)
		os.Exit(exitCode(err))
	}
}

const usage = `usage: gasoline-host <mode> [args]

modes:
  chrome-extension://<id>/      native-messaging host (Chrome launches this)
  --mcp                         MCP over stdio for agents (configs run gasoline-mcp, beside this binary: the same, faster to start)
  daemon                        run the background service in the foreground
  install|uninstall [--browser chrome|chromium|edge|brave|all] [--user-data-dir DIR] [--system]
  service install|uninstall|start|stop|status
  mcp-config --client claude|codex|gemini|cursor
  token [print|rotate]          print or replace the agent (MCP) credential
  remote add NAME [--tools …] [--origins …] [--ttl …] | list | revoke NAME
                                an agent on another machine, over an SSH forward
  doctor                        check every part and name the fix for each failure
  approve|deny <request_id>     decide a pending approval
  grants                        list the live plans and grants
  revoke <id>                   end a plan or grant at once
  policy [add|remove|reset …]   show or change the approval rules (yours alone: agents may only tighten them)
  redaction [add|remove …]      show or change the redaction patterns (yours alone to remove)
  version                       print the version
`

// run dispatches one mode. stdin and stdout are passed in so every mode can
// be driven in-process by tests; in native-messaging and --mcp modes stdout
// belongs to the protocol and nothing else writes to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	mode, rest := args[0], args[1:]
	switch {
	case strings.HasPrefix(mode, "chrome-extension://"):
		return nativehost.Main(ctx, mode, rest, stdin, stdout, stderr)
	case mode == "--mcp" || mode == "mcp":
		return mcprelay.Main(ctx, rest, stdin, stdout, stderr)
	case mode == "daemon":
		// Under the Windows service manager the daemon must answer it;
		// elsewhere service.Run just calls the function.
		return service.Run(ctx, func(ctx context.Context) error { return bridge.Main(ctx, rest, stderr) })
	case mode == "install":
		return install.Main(ctx, false, rest, stdout, stderr)
	case mode == "uninstall":
		return install.Main(ctx, true, rest, stdout, stderr)
	case mode == "service":
		return service.Main(ctx, rest, stdout, stderr)
	case mode == "token":
		return creds.Main(ctx, rest, stdout, stderr)
	case mode == "remote":
		return remote.Main(ctx, rest, stdin, stdout, stderr)
	case mode == "mcp-config":
		return mcpconfig.Main(ctx, rest, stdout, stderr)
	case mode == "doctor":
		return doctor.Main(ctx, rest, stdout, stderr)
	case mode == "approve" || mode == "deny":
		return approvecli.Main(ctx, mode == "deny", rest, stdin, stdout, stderr)
	case mode == "grants":
		return approvecli.Grants(ctx, rest, stdout)
	case mode == "revoke":
		return approvecli.Revoke(ctx, rest, stdout)
	case mode == "policy" || mode == "redaction":
		return guardcli.Main(ctx, mode == "redaction", rest, stdin, stdout, stderr)
	case mode == "version" || mode == "--version":
		fmt.Fprintln(stdout, version.Version)
		return nil
	case mode == "help" || mode == "--help" || mode == "-h":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "unknown mode %q\n\n%s", mode, usage)
	return errUsage
}
