//go:build unix

package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Lock holds the daemon's single-instance lock until Release.
type Lock struct{ f *os.File }

// ErrLocked means another daemon holds the lock.
var ErrLocked = errors.New("state: another gasoline daemon is running (lock held)")

// Acquire takes the exclusive lock on dir/daemon.lock without waiting. The
// OS drops it when the process dies, so a crashed daemon never blocks the
// next one.
func Acquire(dir string) (*Lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, "daemon.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("state: opening lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("state: locking: %w", err)
	}
	return &Lock{f: f}, nil
}

// Release drops the lock.
func (l *Lock) Release() error { return l.f.Close() }

func isChmodUnsupported(error) bool { return false }
