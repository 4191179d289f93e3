// Package notes keeps the agent's notes (configure store and load): small
// named texts an agent saves to find again later — in this session or a
// later one, since they live in the state directory (notes/<key>.json,
// 0600, directory 0700) and survive daemon restarts. Keys are validated
// (they name files), sizes and counts are capped, and a value passes the
// egress stage of the redaction gateway before it is written: a secret
// never reaches the disk.
package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Limits of the notes.
const (
	MaxKey   = 64
	MaxValue = 64 << 10 // bytes, after redaction
	MaxNotes = 256
)

// Errors the modes tell apart.
var (
	ErrKey      = errors.New("notes: invalid key")
	ErrTooLarge = errors.New("notes: value too large")
	ErrFull     = errors.New("notes: too many notes")
	ErrNotFound = errors.New("notes: no such note")
)

// keyRe is what a key may be: it names a file on every OS. Compiled on
// first use, not at every start of gasoline-host.
var keyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// Note is one saved note.
type Note struct {
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	UpdatedAt time.Time `json:"updated_at"`
	// By names the client whose session saved it.
	By string `json:"by,omitempty"`
}

// Store is the notes directory. Safe for concurrent use (one daemon owns
// the state directory).
type Store struct {
	dir string
	mu  sync.Mutex
}

// Open returns the notes under the state directory dir.
func Open(dir string) *Store { return &Store{dir: filepath.Join(dir, "notes")} }

// CheckKey validates a key.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty", ErrKey)
	case len(key) > MaxKey:
		return fmt.Errorf("%w: %d bytes (at most %d)", ErrKey, len(key), MaxKey)
	case !keyRe().MatchString(key) || strings.HasSuffix(key, "."):
		return fmt.Errorf("%w: %q (letters, digits, '.', '_' and '-', starting with a letter or digit)", ErrKey, key)
	}
	return nil
}

func (s *Store) path(key string) string { return filepath.Join(s.dir, key+".json") }

// Put saves a note (replacing one with the same key). An empty value
// deletes the note; deleted reports whether one was there.
func (s *Store) Put(n Note) (deleted bool, err error) {
	if err := CheckKey(n.Key); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n.Value == "" {
		err := os.Remove(s.path(n.Key))
		if errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("%w: %q", ErrNotFound, n.Key)
		}
		return err == nil, err
	}
	if len(n.Value) > MaxValue {
		return false, fmt.Errorf("%w: %d bytes (at most %d)", ErrTooLarge, len(n.Value), MaxValue)
	}
	if _, err := os.Stat(s.path(n.Key)); errors.Is(err, fs.ErrNotExist) {
		keys, err := s.keys()
		if err != nil {
			return false, err
		}
		if len(keys) >= MaxNotes {
			return false, fmt.Errorf("%w: %d notes kept (at most %d)", ErrFull, len(keys), MaxNotes)
		}
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return false, fmt.Errorf("creating %s: %w", s.dir, err)
	}
	raw, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return false, err
	}
	if err := state.WriteFileAtomic(s.path(n.Key), append(raw, '\n'), 0o600); err != nil {
		return false, fmt.Errorf("saving note %q: %w", n.Key, err)
	}
	return false, nil
}

// Get reads a note.
func (s *Store) Get(key string) (Note, error) {
	if err := CheckKey(key); err != nil {
		return Note{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, err := readCapped(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return Note{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	if err != nil {
		return Note{}, err
	}
	var n Note
	if err := json.Unmarshal(raw, &n); err != nil {
		return Note{}, fmt.Errorf("note %q is unreadable (%v); store it again", key, err)
	}
	n.Key = key
	return n, nil
}

// readCapped reads a note file, refusing one larger than a note can be.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const most = 2*MaxValue + 4096 // JSON escaping can double a value
	raw, err := io.ReadAll(io.LimitReader(f, most+1))
	if err == nil && len(raw) > most {
		err = fmt.Errorf("%s is larger than a note can be", path)
	}
	return raw, err
}

// Keys lists the notes' keys, sorted.
func (s *Store) Keys() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys()
}

// keys lists the keys. Called with s.mu held.
func (s *Store) keys() ([]string, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if k, ok := strings.CutSuffix(e.Name(), ".json"); ok && e.Type().IsRegular() && CheckKey(k) == nil {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}
