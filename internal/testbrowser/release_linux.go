package testbrowser

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// waitReleased waits, bounded, until no live process is left in the
// browser's process group and none names the profile on its command line,
// then kills whatever is left. Chromium's network service outlives the
// browser process for a moment and writes "Network Persistent State" into
// the profile on its way out, and the native host it launched can still be
// relaying (and, if the daemon it talks to stops, spawning another into the
// test's home) — both race the removal of temp dirs. There is no event to
// wait on for processes that are not our children, so it polls /proc.
func waitReleased(pgid int, userDataDir string, bound time.Duration) {
	needle := []byte("--user-data-dir=" + userDataDir + "\x00")
	for deadline := time.Now().Add(bound); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !groupAlive(pgid) && !processMentions(needle) {
			return
		}
	}
	if pgid > 0 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// groupAlive reports whether a process other than a zombie is in the group.
// (Orphans are reparented to an init that may never reap them, so zombies
// are counted as gone.)
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces and ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 4 || f[0][0] == 'Z' || f[0][0] == 'X' {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid {
			return true
		}
	}
	return false
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

// groupAttr puts the browser in a process group of its own, so that Stop
// can wait for every helper and the native host it launched.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
