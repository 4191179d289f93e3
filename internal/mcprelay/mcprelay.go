// Package mcprelay is `gasoline-host --mcp`: it ensures the daemon is up and
// relays MCP JSON-RPC between stdio and the daemon.
package mcprelay

import (
	"context"
	"errors"
	"io"
)

// Main runs `gasoline-host --mcp`.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("mcp: not implemented yet")
}
