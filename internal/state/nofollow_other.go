//go:build !unix

package state

import (
	"io/fs"
	"os"
)

// OpenNoFollow refuses a symlink (Windows has no O_NOFOLLOW; the user's
// profile folder's ACL protects the state directory) and opens the rest.
func OpenNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errSymlink
	}
	return os.Open(path)
}

var errSymlink = &fs.PathError{Op: "open", Err: fs.ErrInvalid}

// IsSymlinkErr reports whether OpenNoFollow refused a symlink.
func IsSymlinkErr(err error) bool { return err == errSymlink }

func readPrivate(path string, max int64) ([]byte, error) { return readPrivateFile(path, max) }
