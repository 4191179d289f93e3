//go:build !windows

package agent

import "io/fs"

// tooOpen reports a config file group or others may read or write.
func tooOpen(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }
