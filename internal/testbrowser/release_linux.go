package testbrowser

import (
	"bytes"
	"os"
	"time"
)

// waitProfileReleased waits, bounded, until no process names the profile
// on its command line. Chromium's network service outlives the browser
// process for a moment and writes "Network Persistent State" into the
// profile on its way out, which races the removal of a temp profile. There
// is no event to wait on, so it polls /proc.
func waitProfileReleased(userDataDir string, bound time.Duration) {
	needle := []byte("--user-data-dir=" + userDataDir + "\x00")
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !processMentions(needle) {
			return
		}
	}
}

func processMentions(needle []byte) bool {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		if b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline"); err == nil && bytes.Contains(b, needle) {
			return true
		}
	}
	return false
}
