package creds

import (
	"context"
	"fmt"
	"io"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Main runs `gasoline-host token [print|rotate]`:
//
//	token [print]  prints the agent credential (created on first use), for
//	               MCP clients over HTTP that read it from an environment
//	               variable: export GASOLINE_TOKEN="$(gasoline-host token)"
//	token rotate   replaces it; the running daemon refuses the old one at
//	               once, and the new one is printed
//
// Only the agent credential is offered here: the link and approver ones
// are the daemon's own and change at each start.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := "print"
	if len(args) > 0 {
		verb = args[0]
	}
	if len(args) > 1 {
		return fmt.Errorf("token: unexpected argument %q (usage: gasoline-host token [print|rotate])", args[1])
	}
	dir, err := state.Dir()
	if err != nil {
		return err
	}
	var tok string
	switch verb {
	case "print":
		tok, err = Ensure(dir, Agent)
	case "rotate":
		tok, err = Rotate(dir, Agent)
		if err == nil {
			fmt.Fprintln(stderr, "gasoline-host: agent credential rotated; HTTP MCP clients need the new one (gasoline-host mcp-config prints their configuration); stdio clients pick it up by themselves")
		}
	default:
		return fmt.Errorf("token: unknown command %q (usage: gasoline-host token [print|rotate])", verb)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}
