// Package mcpconfig prints MCP client configuration for Gasoline.
package mcpconfig

import (
	"context"
	"errors"
	"io"
)

// Main runs `gasoline-host mcp-config`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("mcp-config: not implemented yet")
}
