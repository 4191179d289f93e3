package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// Store is the daemon's live policy: the file at its path, re-read whenever
// the file changes (so a hand edit takes effect on the next call), and
// replaced through Replace. Safe for concurrent use.
//
// A file that fails to load makes the Store fail closed: read-only calls
// are still allowed, a change of the policy itself is gated (so the user
// can approve the fix), and every other mutating or sensitive call is
// denied, each with an error that says why.
type Store struct {
	path string

	mu    sync.Mutex
	pol   *Policy
	err   error
	stamp os.FileInfo // nil: no file (or unreadable)
}

// Open returns a Store for path and loads it. A load error is kept (see
// Err) rather than returned: the Store is usable and fails closed.
func Open(path string) *Store {
	s := &Store{path: path}
	s.mu.Lock()
	s.reloadLocked(true)
	s.mu.Unlock()
	return s
}

// Path is the file the Store reads.
func (s *Store) Path() string { return s.path }

// Current returns the policy in force, re-reading the file if it changed.
// When the file is broken it returns nil and the load error.
func (s *Store) Current() (*Policy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked(false)
	return s.pol, s.err
}

// Err is the current load error, or nil.
func (s *Store) Err() error {
	_, err := s.Current()
	return err
}

// Evaluate decides a call (see Policy.Decide). With a broken file it fails
// closed as described on Store and returns the load error alongside the
// decision.
func (s *Store) Evaluate(class Class, action, origin string) (Effect, Rule, error) {
	p, err := s.Current()
	if err == nil {
		eff, r := p.Decide(class, action, origin)
		return eff, r, nil
	}
	err = fmt.Errorf("policy: the policy file is broken, so mutating and sensitive calls are refused until it is fixed: %w", err)
	r := Rule{Class: string(class), Action: action, Origin: "*", Builtin: true}
	switch {
	case class == ReadOnly:
		r.Effect = Allow
	case class.Gated() && AlwaysAsk(action):
		r.Effect = Gate
	default:
		r.Effect = Deny
	}
	return r.Effect, r, err
}

// Replace validates p, sets its Version to the current version plus one,
// saves it atomically and puts it in force. The caller gates this (it is a
// mutating call that no rule can pre-approve). It returns the saved policy.
func (s *Store) Replace(p *Policy) (*Policy, error) {
	next := &Policy{Rules: append([]Rule(nil), p.Rules...)}
	if err := next.Validate(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked(false)
	next.Version = 1
	if s.pol != nil {
		next.Version = s.pol.Version + 1
	}
	if err := Save(s.path, next); err != nil {
		return nil, err
	}
	s.reloadLocked(true)
	return next, s.err
}

// Reload re-reads the file now and returns its load error.
func (s *Store) Reload() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloadLocked(true)
	return s.err
}

// reloadLocked re-reads the file when forced or when it changed since the
// last read (another inode, size or modification time).
func (s *Store) reloadLocked(force bool) {
	fi, statErr := os.Stat(s.path)
	if statErr != nil {
		fi = nil
	}
	if !force && sameStamp(s.stamp, fi) && (s.pol != nil || s.err != nil) {
		return
	}
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		s.pol, s.err, s.stamp = nil, fmt.Errorf("policy: reading %s: %w", s.path, statErr), nil
		return
	}
	s.pol, s.err = Load(s.path)
	s.stamp = fi
}

func sameStamp(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
