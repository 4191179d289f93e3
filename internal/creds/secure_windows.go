package creds

import (
	"io"
	"io/fs"
	"os"
)

// On Windows the user's profile folder's ACL protects the state
// directory; the mode bits say nothing about who may read a file, so only
// symlinks are refused there.
func foreignOwner(fs.FileInfo) string { return "" }

func openPerm(fs.FileInfo) fs.FileMode { return 0 }

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

func readAllBounded(f *os.File, n int64) ([]byte, error) { return io.ReadAll(io.LimitReader(f, n)) }
