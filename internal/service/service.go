// Package service installs and controls the OS service that runs the daemon.
package service

import (
	"context"
	"errors"
	"io"
)

// Main runs `gasoline-host service ...`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("service: not implemented yet")
}
