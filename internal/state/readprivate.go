package state

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// ErrUnsafe means a private file could have been put there or changed by
// someone else: a symlink, not a regular file, or open to group or others.
// Its content is never used.
var ErrUnsafe = errors.New("state: unsafe private file")

// ErrTooLarge means a private file is longer than its reader allows.
var ErrTooLarge = errors.New("state: private file too large")

// ReadPrivateFile reads a file only the user may have written: opened
// without following a symlink (O_NOFOLLOW) and checked on the open file (a
// regular file, closed to group and others), so a swap between a check
// and the read changes nothing. A file longer than max is ErrTooLarge; a
// missing one is fs.ErrNotExist.
func ReadPrivateFile(path string, max int64) ([]byte, error) { return readPrivate(path, max) }

// readPrivateFile is ReadPrivateFile through an os.File (where there is no
// plain system-call version: nofollow_other.go).
func readPrivateFile(path string, max int64) ([]byte, error) {
	f, err := OpenNoFollow(path)
	if err != nil {
		if IsSymlinkErr(err) {
			return nil, fmt.Errorf("%w: %s is a symlink", ErrUnsafe, path)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("state: reading %s: %w", path, err)
	}
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnsafe, path)
	case tooOpen(fi):
		return nil, fmt.Errorf("%w: %s is %#o", ErrUnsafe, path, fi.Mode().Perm())
	case fi.Size() > max:
		return nil, fmt.Errorf("%w: %s is %d bytes, past %d", ErrTooLarge, path, fi.Size(), max)
	}
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("state: reading %s: %w", path, err)
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("%w: %s grew past %d bytes", ErrTooLarge, path, max)
	}
	return raw, nil
}

// InitCachePath is where the stdio relay keeps the daemon's last
// initialize answers (internal/mcprelay), in the state directory dir.
func InitCachePath(dir string) string { return filepath.Join(dir, "mcp-initialize.json") }
