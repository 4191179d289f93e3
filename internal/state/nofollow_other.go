//go:build !unix

package state

import (
	"io/fs"
	"os"
)

// openNoFollow refuses a symlink (Windows has no O_NOFOLLOW; the user's
// profile folder's ACL protects the state directory) and opens the rest.
func openNoFollow(path string) (*os.File, error) {
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

func isSymlinkErr(err error) bool { return err == errSymlink }

func readPrivate(path string, max int64) ([]byte, error) { return readPrivateFile(path, max) }
