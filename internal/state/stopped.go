package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// A deliberate stop: a daemon stopped on purpose (`gasoline-host service
// stop`, a user's SIGTERM or Ctrl-C) leaves stopped.json beside state.json,
// and the launcher then starts no daemon on its own (the native host tells
// the extension instead) until an explicit start clears it: the panel's
// Start button, `gasoline-host service start`, or any daemon that starts.
// A crash leaves no marker, so a crashed daemon is still brought back.

// Stop is the content of stopped.json.
type Stop struct {
	At  time.Time `json:"at"`
	By  string    `json:"by"` // what stopped it, in words
	PID int       `json:"pid,omitempty"`
}

// StoppedPath returns the deliberate-stop marker's path in dir.
func StoppedPath(dir string) string { return filepath.Join(dir, "stopped.json") }

// MarkStopped records a deliberate stop.
func MarkStopped(dir string, s Stop) error {
	if s.At.IsZero() {
		s.At = time.Now().UTC()
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return WriteFileAtomic(StoppedPath(dir), raw, 0o600)
}

// Stopped reports a deliberate stop recorded in dir. An unreadable or
// corrupt marker still counts as one: the user asked for a stop, and an
// explicit start clears it.
func Stopped(dir string) (Stop, bool) {
	raw, err := os.ReadFile(StoppedPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return Stop{}, false
	}
	var s Stop
	if err != nil || json.Unmarshal(raw, &s) != nil {
		return Stop{By: "a stop recorded in " + StoppedPath(dir)}, true
	}
	return s, true
}

// ClearStopped removes the marker (an explicit start). A missing marker is
// not an error.
func ClearStopped(dir string) error {
	if err := os.Remove(StoppedPath(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("state: clearing %s: %w", StoppedPath(dir), err)
	}
	return nil
}

// Describe says, for people, when and how Gasoline was stopped.
func (s Stop) Describe() string {
	if s.At.IsZero() {
		return "stopped on purpose (" + s.By + ")"
	}
	return fmt.Sprintf("stopped on purpose at %s (%s)", s.At.Local().Format("2006-01-02 15:04:05"), s.By)
}
