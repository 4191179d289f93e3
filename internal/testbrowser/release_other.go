//go:build !linux

package testbrowser

import (
	"syscall"
	"time"
)

func waitReleased(int, string, time.Duration) {}

func groupAttr() *syscall.SysProcAttr { return nil }
