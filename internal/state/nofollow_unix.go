//go:build unix

package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenNoFollow opens path for reading; a symlink fails (ELOOP, see
// IsSymlinkErr) and a FIFO does not block the open. internal/creds reads
// its credential files through it.
func OpenNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// IsSymlinkErr reports whether OpenNoFollow refused a symlink.
func IsSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }

// readPrivate is ReadPrivateFile in plain system calls: an os.File's first
// open sets up the runtime's network poller (~0.1 ms), and the stdio
// relay reads its cache before its first answer (internal/mcprelay).
func readPrivate(path string, max int64) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: %s is a symlink", ErrUnsafe, path)
	case errors.Is(err, syscall.ENOENT):
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("state: reading %s: %w", path, err)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnsafe, path)
	case st.Mode&0o077 != 0:
		return nil, fmt.Errorf("%w: %s is %#o", ErrUnsafe, path, st.Mode&0o777)
	case st.Size > max:
		return nil, fmt.Errorf("%w: %s is %d bytes, past %d", ErrTooLarge, path, st.Size, max)
	}
	buf := make([]byte, 0, st.Size+1)
	for {
		if int64(len(buf)) > max {
			return nil, fmt.Errorf("%w: %s grew past %d bytes", ErrTooLarge, path, max)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, syscall.EINTR) || errors.Is(err, syscall.EAGAIN) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("state: reading %s: %w", path, err)
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
