//go:build !windows

package creds

func chmodUnsupported() bool { return false }
