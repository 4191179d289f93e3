// Package noise keeps the user's noise rules (configure noise_rule): regular
// expressions that hide recurring, uninteresting console messages and
// errors (a third-party widget's warnings, a known ResizeObserver loop)
// from observe errors, logs, error_bundles and timeline, and from the
// session's pull-request summary. Every answer that hid something says how
// many entries it hid. Rules persist in the state directory (noise.json,
// 0600) and apply to every session.
package noise

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// FileName is the rules file in the state directory.
const FileName = "noise.json"

// Limits of the rules.
const (
	MaxRules   = 100
	MaxPattern = 512 // bytes
	maxFile    = 1 << 20
)

// Rule is one noise pattern.
type Rule struct {
	Pattern string    `json:"pattern"`
	AddedAt time.Time `json:"added_at"`
	// Hidden counts the entries it hid from answers since the daemon
	// started (an entry hidden from two answers counts twice).
	Hidden uint64 `json:"hidden"`
}

type rule struct {
	pattern string
	added   time.Time
	re      *regexp.Regexp
	hidden  atomic.Uint64
}

// file is noise.json.
type file struct {
	Version int `json:"version"`
	Rules   []struct {
		Pattern string    `json:"pattern"`
		AddedAt time.Time `json:"added_at"`
	} `json:"rules"`
}

// Rules is the live rule list. Safe for concurrent use.
type Rules struct {
	path string

	mu      sync.RWMutex
	rules   []*rule
	loadErr error // why noise.json could not be read; no rule applies then
}

// Errors the modes tell apart.
var (
	ErrInvalid  = errors.New("noise: invalid pattern")
	ErrFull     = errors.New("noise: too many rules")
	ErrNotFound = errors.New("noise: no such rule")
	ErrExists   = errors.New("noise: rule exists")
)

// Open loads the rules of the state directory dir. A missing file is no
// rules; an unreadable or invalid one applies no rule, is reported by
// Err and List, and is replaced by the next Add or Remove.
func Open(dir string) *Rules {
	r := &Rules{path: filepath.Join(dir, FileName)}
	r.loadErr = r.load()
	return r
}

func (r *Rules) load() error {
	raw, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", r.path, err)
	}
	if len(raw) > maxFile {
		return fmt.Errorf("%s is %d bytes (at most %d)", r.path, len(raw), maxFile)
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return fmt.Errorf("%s: %w", r.path, err)
	}
	if len(f.Rules) > MaxRules {
		return fmt.Errorf("%s holds %d rules (at most %d)", r.path, len(f.Rules), MaxRules)
	}
	for _, fr := range f.Rules {
		re, err := compile(fr.Pattern)
		if err != nil {
			return fmt.Errorf("%s: %w", r.path, err)
		}
		r.rules = append(r.rules, &rule{pattern: fr.Pattern, added: fr.AddedAt, re: re})
	}
	return nil
}

// Err reports why the rules file could not be loaded (nil when it could).
func (r *Rules) Err() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.loadErr
}

func compile(pattern string) (*regexp.Regexp, error) {
	switch {
	case pattern == "":
		return nil, fmt.Errorf("%w: empty", ErrInvalid)
	case len(pattern) > MaxPattern:
		return nil, fmt.Errorf("%w: %d bytes (at most %d)", ErrInvalid, len(pattern), MaxPattern)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if re.MatchString("") {
		return nil, fmt.Errorf("%w: %q matches every message", ErrInvalid, pattern)
	}
	return re, nil
}

// Hide reports whether a console message or error (its text and the URL of
// its source) is noise, counting it to the first rule that matches.
func (r *Rules) Hide(text, url string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, ru := range r.rules {
		if ru.re.MatchString(text) || url != "" && ru.re.MatchString(url) {
			ru.hidden.Add(1)
			return true
		}
	}
	return false
}

// List returns the rules, oldest first.
func (r *Rules) List() []Rule {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Rule, 0, len(r.rules))
	for _, ru := range r.rules {
		out = append(out, Rule{Pattern: ru.pattern, AddedAt: ru.added, Hidden: ru.hidden.Load()})
	}
	return out
}

// Add adds a rule and saves the file.
func (r *Rules) Add(pattern string, now time.Time) (Rule, error) {
	re, err := compile(pattern)
	if err != nil {
		return Rule{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.ContainsFunc(r.rules, func(ru *rule) bool { return ru.pattern == pattern }) {
		return Rule{}, fmt.Errorf("%w: %q", ErrExists, pattern)
	}
	if len(r.rules) >= MaxRules {
		return Rule{}, fmt.Errorf("%w: %d rules kept (at most %d)", ErrFull, len(r.rules), MaxRules)
	}
	ru := &rule{pattern: pattern, added: now.UTC().Truncate(time.Second), re: re}
	if err := r.save(append(slices.Clone(r.rules), ru)); err != nil {
		return Rule{}, err
	}
	r.rules = append(r.rules, ru)
	r.loadErr = nil
	return Rule{Pattern: ru.pattern, AddedAt: ru.added}, nil
}

// Remove removes the rule with exactly this pattern and saves the file.
func (r *Rules) Remove(pattern string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.IndexFunc(r.rules, func(ru *rule) bool { return ru.pattern == pattern })
	if i < 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, pattern)
	}
	kept := slices.Delete(slices.Clone(r.rules), i, i+1)
	if err := r.save(kept); err != nil {
		return err
	}
	r.rules = kept
	r.loadErr = nil
	return nil
}

// save writes rules to the file (0600, atomically). Called with r.mu held.
func (r *Rules) save(rules []*rule) error {
	f := file{Version: 1}
	for _, ru := range rules {
		f.Rules = append(f.Rules, struct {
			Pattern string    `json:"pattern"`
			AddedAt time.Time `json:"added_at"`
		}{ru.pattern, ru.added})
	}
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := state.WriteFileAtomic(r.path, append(raw, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the noise rules: %w", err)
	}
	return nil
}
