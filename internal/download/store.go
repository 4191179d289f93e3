package download

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits: a download larger than MaxBytes is stopped and its part
// removed; a text file of at most MaxText bytes is shown in full by
// observe downloads; the store keeps the latest MaxKept records.
const (
	MaxBytes = 256 << 20
	MaxText  = 16 << 10
	MaxKept  = 500
)

// The states of a download.
const (
	Pending  = "awaiting_approval" // held in the browser until the user or the policy decides
	Saving   = "saving"
	Saved    = "saved"
	Refused  = "refused"   // the approval was denied, expired or refused by the policy: nothing written
	Failed   = "failed"    // reading or writing failed: nothing kept
	Canceled = "cancelled" // Chrome started it past the interception; the extension cancelled it, nothing written
)

// Record is one download as observe downloads shows it.
type Record struct {
	ID       string    `json:"id"`
	Tab      int       `json:"tab_id"`
	URL      string    `json:"url"`
	Name     string    `json:"name"`
	Type     string    `json:"type,omitempty"`
	Size     int64     `json:"size"`
	SHA256   string    `json:"sha256,omitempty"`
	Path     string    `json:"path,omitempty"`
	State    string    `json:"state"`
	Note     string    `json:"note,omitempty"`
	Approval string    `json:"approval_request,omitempty"` // the request the user is asked, while Pending
	Content  string    `json:"content,omitempty"`          // small text files, in full
	Started  time.Time `json:"started"`
	session  string
}

// Store writes downloads under Dir/downloads and keeps their records per
// session. Its methods are safe for concurrent use.
type Store struct {
	dir  string
	mu   sync.Mutex
	next int
	recs []*Record
}

// NewStore returns a store writing under stateDir/downloads.
func NewStore(stateDir string) *Store { return &Store{dir: filepath.Join(stateDir, "downloads")} }

// Dir is where downloads are written.
func (s *Store) Dir() string { return s.dir }

// Begin records a download of session on tab and returns its id.
func (s *Store) Begin(session string, tab int, url, name, typ string, size int64, state string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	r := &Record{ID: fmt.Sprintf("d%d", s.next), Tab: tab, URL: url, Name: name, Type: typ, Size: size, State: state,
		Started: time.Now().UTC(), session: session}
	s.recs = append(s.recs, r)
	s.trimLocked()
	return r.ID
}

func (s *Store) trimLocked() {
	if over := len(s.recs) - MaxKept; over > 0 {
		s.recs = append(s.recs[:0:0], s.recs[over:]...)
	}
}

// Update changes a record (by id) under the lock.
func (s *Store) Update(id string, f func(r *Record)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.recs {
		if r.ID == id {
			f(r)
			return
		}
	}
}

// List returns a session's downloads, newest first, at most limit.
func (s *Store) List(session string, limit int) []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Record
	for i := len(s.recs) - 1; i >= 0 && len(out) < limit; i-- {
		if r := s.recs[i]; r.session == session {
			out = append(out, *r)
		}
	}
	return out
}

// Forget drops a session's records (the files stay in downloads/).
func (s *Store) Forget(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.recs[:0]
	for _, r := range s.recs {
		if r.session != session {
			kept = append(kept, r)
		}
	}
	s.recs = kept
}

// ErrTooLarge is returned when a download passes MaxBytes.
var ErrTooLarge = fmt.Errorf("download: larger than %d MiB", MaxBytes>>20)

// Write saves what fill puts (chunk by chunk) as name under the downloads
// directory (0700), in a new 0600 file that never replaces another ("name
// (2).ext" …): written to a hidden part file first and renamed when
// complete, so a partial download is never left under its name. It
// returns the path, size and SHA-256, and the content when it is small
// text.
func (s *Store) Write(name string, fill func(put func([]byte) error) error) (path string, size int64, sum, text string, err error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", 0, "", "", fmt.Errorf("download: creating %s: %w", s.dir, err)
	}
	part, err := os.CreateTemp(s.dir, ".part-*")
	if err != nil {
		return "", 0, "", "", fmt.Errorf("download: %w", err)
	}
	defer func() {
		if err != nil {
			part.Close()
			os.Remove(part.Name())
		}
	}()
	if err = part.Chmod(0o600); err != nil {
		return "", 0, "", "", err
	}
	h := sha256.New()
	var head []byte
	put := func(chunk []byte) error {
		if size += int64(len(chunk)); size > MaxBytes {
			return ErrTooLarge
		}
		if len(head) <= MaxText {
			head = append(head, chunk[:min(len(chunk), MaxText+1-len(head))]...)
		}
		h.Write(chunk)
		if _, err := part.Write(chunk); err != nil {
			return fmt.Errorf("download: writing: %w", err)
		}
		return nil
	}
	if err = fill(put); err != nil {
		return "", 0, "", "", err
	}
	if err = part.Close(); err != nil {
		return "", 0, "", "", err
	}
	if path, err = s.place(part.Name(), name); err != nil {
		return "", 0, "", "", err
	}
	if size <= MaxText && isText(head) {
		text = string(head)
	}
	return path, size, hex.EncodeToString(h.Sum(nil)), text, nil
}

// place renames the finished part to the first free name.
func (s *Store) place(part, name string) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= 1000; i++ {
		cand := name
		if i > 1 {
			cand = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(s.dir, cand)
		// Link, not Rename: it fails when the name is taken, where
		// Rename would silently replace an earlier download.
		if err := os.Link(part, p); err == nil {
			os.Remove(part)
			return p, nil
		} else if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("download: saving %s: %w", p, err)
		}
	}
	return "", fmt.Errorf("download: no free name for %s", name)
}

// isText reports UTF-8 without NUL bytes or other control characters
// than tabs and line ends.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}
