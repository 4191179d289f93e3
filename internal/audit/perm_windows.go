package audit

import "os"

// tighten is a no-op on Windows: the file inherits the per-user
// %LOCALAPPDATA% ACL, and Chmod only toggles the read-only bit.
func tighten(*os.File) error { return nil }
