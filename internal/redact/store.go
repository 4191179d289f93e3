package redact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FileName is the redaction policy's name in the state directory, and
// EnvPolicy the environment variable that points elsewhere. The daemon and
// the native host read the same file: one policy for every stage.
const (
	FileName  = "redaction.json"
	EnvPolicy = "GASOLINE_REDACTION"
)

// PathIn returns $GASOLINE_REDACTION, else redaction.json in dir.
func PathIn(dir string) string {
	if p := os.Getenv(EnvPolicy); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	return filepath.Join(dir, FileName)
}

// recheck is how often a Store looks at its file for changes.
const recheck = 250 * time.Millisecond

// Store is the live redaction policy: the file at its path, or
// [DefaultPolicy] when there is none, re-read when the file changes (looked
// at most every 250 ms). A file that fails to load, parse or compile makes
// Engine return an error wrapping [ErrPolicy] — fail closed — until it is
// fixed. Safe for concurrent use.
type Store struct {
	path string
	now  func() time.Time

	mu      sync.Mutex
	eng     *Engine
	err     error
	stamp   os.FileInfo
	checked time.Time
}

// OpenStore returns a Store for path and loads it.
func OpenStore(path string) *Store {
	s := &Store{path: path, now: time.Now}
	s.mu.Lock()
	s.reloadLocked(true)
	s.mu.Unlock()
	return s
}

// Path is the file the Store reads.
func (s *Store) Path() string { return s.path }

// Engine returns the engine of the policy in force. With a broken policy
// file it returns nil and the load error (wrapping ErrPolicy): callers
// block their output.
func (s *Store) Engine() (*Engine, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now := s.now(); now.Sub(s.checked) >= recheck || now.Before(s.checked) {
		s.reloadLocked(false)
	}
	return s.eng, s.err
}

// Reload re-reads the file now and returns its load error.
func (s *Store) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked(true)
	return s.err
}

// Policy returns the policy in force (DefaultPolicy without a file).
func (s *Store) Policy() (Policy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked(false)
	if s.err != nil {
		return Policy{}, s.err
	}
	return s.load()
}

// Update applies change to the policy in force, gives it the next version
// ("<base>+N") and saves it atomically (0600); the new policy is in force
// when Update returns. The caller gates it: changing what is redacted is a
// mutating call. A broken file is replaced only when change succeeds on
// the default policy.
func (s *Store) Update(change func(p *Policy) error) (Policy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked(true)
	p := DefaultPolicy()
	if s.err == nil {
		var err error
		if p, err = s.load(); err != nil {
			return Policy{}, err
		}
	}
	if err := change(&p); err != nil {
		return Policy{}, err
	}
	p.Version = nextVersion(p.Version)
	if _, err := New(p); err != nil {
		return Policy{}, err
	}
	raw, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return Policy{}, fmt.Errorf("redact: encoding the policy: %w", err)
	}
	if err := writeAtomic(s.path, append(raw, '\n')); err != nil {
		return Policy{}, err
	}
	s.reloadLocked(true)
	return p, s.err
}

// load reads the policy from the file, or the default without one.
func (s *Store) load() (Policy, error) {
	if s.stamp == nil {
		return DefaultPolicy(), nil
	}
	return LoadPolicy(s.path)
}

// nextVersion turns "v" into "v+1" and "v+N" into "v+N+1".
func nextVersion(v string) string {
	base, n := v, 0
	if i := strings.LastIndexByte(v, '+'); i > 0 {
		if k, err := strconv.Atoi(v[i+1:]); err == nil && k > 0 {
			base, n = v[:i], k
		}
	}
	return base + "+" + strconv.Itoa(n+1)
}

// reloadLocked re-reads the file when forced or when it changed (another
// inode, size or modification time).
func (s *Store) reloadLocked(force bool) {
	s.checked = s.now()
	fi, statErr := os.Stat(s.path)
	if statErr != nil {
		fi = nil
	}
	if !force && sameFile(s.stamp, fi) && (s.eng != nil || s.err != nil) {
		return
	}
	s.stamp = fi
	switch {
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		s.eng, s.err = nil, fmt.Errorf("%w: reading %s: %v", ErrPolicy, s.path, statErr)
		return
	case statErr != nil:
		s.eng, s.err = New(DefaultPolicy())
		return
	}
	p, err := LoadPolicy(s.path)
	if err != nil {
		s.eng, s.err = nil, err
		return
	}
	s.eng, s.err = New(p)
}

func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// writeAtomic writes data to path through a temp file, fsync and rename.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("redact: creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".redaction-*.json")
	if err != nil {
		return fmt.Errorf("redact: saving the policy: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("redact: saving the policy to %s: %w", path, err)
	}
	return nil
}
