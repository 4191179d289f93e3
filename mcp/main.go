// Command gasoline-mcp is the stdio MCP server agents' configs run (what
// `gasoline-host mcp-config` prints): it relays MCP between the agent and
// the Gasoline daemon, and starts the daemon from the gasoline-host beside
// it when none runs. It links only the relay (internal/mcprelay), so it
// starts in a fraction of gasoline-host's time; `gasoline-host --mcp` runs
// the same relay for older configs. main only dispatches.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/mcprelay"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// main installs no signal handler: the relay watches SIGINT and SIGTERM
// once it has the client's first message (mcprelay.MainSlim), so nothing
// runs before the first answer that can wait.
func main() {
	err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gasoline-mcp: %v\n", err)
		os.Exit(1)
	}
}

// run serves MCP over stdin and stdout, which belong to the protocol and
// nothing else, or prints the version.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version":
			fmt.Fprintln(stdout, version.Version)
			return nil
		case "--mcp", "mcp": // gasoline-host's mode argument: a config that only swapped the path still works
			args = args[1:]
		}
	}
	err := mcprelay.MainSlim(ctx, args, stdin, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}
