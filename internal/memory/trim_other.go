//go:build !linux

package memory

// UnmapCleanPages is Linux's (trim_linux.go); elsewhere the runtime sizing is
// all there is.
func UnmapCleanPages() {}
