// Package install writes and removes the native-messaging host manifests.
package install

import (
	"context"
	"errors"
	"io"
)

// Main runs `gasoline-host install|uninstall`.
func Main(ctx context.Context, uninstall bool, args []string, stdout, stderr io.Writer) error {
	return errors.New("install: not implemented yet")
}
