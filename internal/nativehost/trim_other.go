//go:build !linux

package nativehost

// trimStartup is Linux's (trim_linux.go); elsewhere the runtime sizing is
// all there is.
func trimStartup() {}
