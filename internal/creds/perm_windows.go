package creds

// Chmod on Windows only toggles the read-only bit; the file's ACL (the
// user's profile folder) is what protects it there.
func chmodUnsupported() bool { return true }
