//go:build !windows

package audit

import (
	"fmt"
	"os"
)

// tighten makes an existing log file owner-only (0600).
func tighten(f *os.File) error {
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("audit: chmod %s: %w", f.Name(), err)
	}
	return nil
}
