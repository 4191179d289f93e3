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

func readAllBounded(f *os.File, n int64) ([]byte, error) { return io.ReadAll(io.LimitReader(f, n)) }
