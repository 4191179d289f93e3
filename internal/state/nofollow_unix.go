//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path for reading; a symlink fails (ELOOP) and a FIFO
// does not block the open.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
