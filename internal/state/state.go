// Package state owns Gasoline's on-disk state: the state directory, the
// daemon's state file (pid, port, token, version) and the single-instance
// lock.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// DefaultPort is the daemon's port unless GASOLINE_PORT says otherwise.
const DefaultPort = 7890

// File is the content of state.json: where the daemon is, never a
// credential (those are in internal/creds' files, one per role).
type File struct {
	PID       int       `json:"pid"`
	Port      int       `json:"port"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"started_at"`
	// LegacyToken is the single token daemons before per-role
	// credentials wrote here; the launcher reads it only to ask such a
	// daemon to shut down when a newer version takes over. It is never
	// written.
	LegacyToken string `json:"token,omitempty"`
}

// Dir is the state directory: $GASOLINE_HOME, else the per-OS default
// (see defaultDir in the paths_*.go files).
func Dir() (string, error) {
	if d := os.Getenv("GASOLINE_HOME"); d != "" {
		return filepath.Abs(d)
	}
	return defaultDir()
}

// DefaultDir is the OS default state directory, whatever $GASOLINE_HOME
// says: upload refuses it as well as the one in use.
func DefaultDir() (string, error) { return defaultDir() }

// Port is the daemon port: $GASOLINE_PORT, else DefaultPort.
func Port() (int, error) {
	s := os.Getenv("GASOLINE_PORT")
	if s == "" {
		return DefaultPort, nil
	}
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("state: GASOLINE_PORT=%q is not a port number (1-65535)", s)
	}
	return p, nil
}

// Path returns the state file's path in dir.
func Path(dir string) string { return filepath.Join(dir, "state.json") }

// LogDir returns the log directory in dir.
func LogDir(dir string) string { return filepath.Join(dir, "logs") }

// EnsureDir creates dir (0700) and its logs folder.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(LogDir(dir), 0o700); err != nil {
		return fmt.Errorf("state: creating %s: %w", dir, err)
	}
	return nil
}

// ErrNoState means no daemon has written a state file.
var ErrNoState = errors.New("state: no state file (daemon not running)")

// Read loads the state file in dir. A missing file is ErrNoState.
func Read(dir string) (File, error) {
	var f File
	raw, err := os.ReadFile(Path(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return f, ErrNoState
	}
	if err != nil {
		return f, fmt.Errorf("state: reading %s: %w", Path(dir), err)
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return f, fmt.Errorf("state: %s is not valid JSON: %w", Path(dir), err)
	}
	return f, nil
}

// Write stores f atomically (temp file in the same folder, fsync, rename)
// with mode 0600, so a reader sees the old file or the new one, never half.
func Write(dir string, f File) error {
	raw, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return WriteFileAtomic(Path(dir), raw, 0o600)
}

// WriteFileAtomic writes data to path through a temp file, synced, and a
// rename.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return replace(path, data, perm, true)
}

// WritePrivate writes the daemon's own records (0600) through a temp file
// and a rename, creating path's folder (0700) when missing, so a reader
// sees the old file or the new one, never half. durable syncs the file
// before the rename. Files written on a call's path (tabs.json, pending
// results) pass false: the rename alone survives the daemon being killed,
// which is what they are for, and after a power loss what they hold is
// checked again (the browser's tab groups are the truth) or lost on
// purpose.
func WritePrivate(path string, data []byte, durable bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	return replace(path, data, 0o600, durable)
}

func replace(path string, data []byte, perm fs.FileMode, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name) // no-op after a successful rename
	if err := tmp.Chmod(perm); err != nil && !isChmodUnsupported(err) {
		tmp.Close()
		return fmt.Errorf("state: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("state: writing %s: %w", name, err)
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return fmt.Errorf("state: %w", err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("state: replacing %s: %w", path, err)
	}
	return nil
}

// Remove deletes the state file if it still names pid (so a daemon never
// removes its successor's file). Missing files and permission errors are
// tolerated and reported to the caller only as a bool.
func Remove(dir string, pid int) (removed bool) {
	f, err := Read(dir)
	if err != nil && !errors.Is(err, ErrNoState) {
		// Unreadable or corrupt: remove it if we can, it is stale anyway.
		return os.Remove(Path(dir)) == nil
	}
	if err != nil || (pid != 0 && f.PID != pid) {
		return false
	}
	return os.Remove(Path(dir)) == nil
}
