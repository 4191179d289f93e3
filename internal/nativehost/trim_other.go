//go:build !linux

package nativehost

// unmapCleanPages is Linux's (trim_linux.go); elsewhere the runtime sizing is
// all there is.
func unmapCleanPages() {}
