//go:build !linux

package testbrowser

import "time"

func waitProfileReleased(string, time.Duration) {}
