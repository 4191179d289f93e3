//go:build !linux

package redact

// threadCPU is unavailable off Linux.
func threadCPU() (int64, bool) { return 0, false }
