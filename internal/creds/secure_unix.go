//go:build !windows

package creds

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// foreignOwner says when a file belongs to another user.
func foreignOwner(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Sprintf("it is owned by uid %d, not by this user (uid %d)", st.Uid, uid)
	}
	return ""
}

// openPerm is the part of a file's mode open to group and others.
func openPerm(fi fs.FileInfo) fs.FileMode { return fi.Mode().Perm() & 0o077 }

func readAllBounded(f *os.File, n int64) ([]byte, error) { return io.ReadAll(io.LimitReader(f, n)) }
