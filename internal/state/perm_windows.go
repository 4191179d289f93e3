package state

import "io/fs"

// tooOpen: Windows has no Unix modes; the file lives in the user's
// %LOCALAPPDATA%, which only that user can read.
func tooOpen(fs.FileInfo) bool { return false }
