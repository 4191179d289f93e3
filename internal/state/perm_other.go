//go:build !windows

package state

import "io/fs"

// tooOpen reports a private file group or others may read or write.
func tooOpen(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }
