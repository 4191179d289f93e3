// Package doctor checks every part of an installation and names the fix.
package doctor

import (
	"context"
	"errors"
	"io"
)

// FailedError reports that one or more checks failed.
type FailedError struct{ Failed int }

func (e *FailedError) Error() string { return "doctor: checks failed" }

// Main runs `gasoline-host doctor`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("doctor: not implemented yet")
}
