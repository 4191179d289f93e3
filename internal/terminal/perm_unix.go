//go:build !windows

package terminal

import "io/fs"

// tooOpen reports a settings file group or others may read or write.
func tooOpen(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }
