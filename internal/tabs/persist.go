package tabs

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/browsers"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// What a daemon restart must not lose of tab ownership: which session
// holds which tab (and whether the user shared it), each session's current
// tab (the order of use) and its group in each browser. It is kept in
// tabs.json; the browsers' tab groups stay the truth, and a browser that
// connects is reconciled against them (reconcile.go).

// StateFile is the ownership file in the state directory.
const StateFile = "tabs.json"

// Saved is the content of tabs.json.
type Saved struct {
	Version  int            `json:"version"`
	Sessions []SavedSession `json:"sessions"`
}

// SavedSession is one session's tabs.
type SavedSession struct {
	ID string `json:"session"`
	// Tabs in order of use: the current tab last.
	Tabs   []SavedTab   `json:"tabs"`
	Groups []SavedGroup `json:"groups,omitempty"`
}

// SavedTab is an owned tab.
type SavedTab struct {
	Tab    int  `json:"tab"`
	Shared bool `json:"shared,omitempty"`
}

// SavedGroup is a session's tab group in one browser.
type SavedGroup struct {
	Slot  browsers.Slot `json:"slot"`
	Group int           `json:"group"`
}

// Snapshot returns the registry's state.
func (r *Registry) Snapshot() Saved {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Saved{Version: 1, Sessions: []SavedSession{}}
	for id, o := range r.sessions {
		if len(o.tabs) == 0 && len(o.groups) == 0 {
			continue
		}
		ss := SavedSession{ID: id, Tabs: []SavedTab{}}
		for _, t := range o.tabs {
			ss.Tabs = append(ss.Tabs, SavedTab{Tab: t, Shared: r.kind[t] == Shared})
		}
		for slot, g := range o.groups {
			ss.Groups = append(ss.Groups, SavedGroup{Slot: slot, Group: g})
		}
		slices.SortFunc(ss.Groups, func(a, b SavedGroup) int { return int(a.Slot - b.Slot) })
		s.Sessions = append(s.Sessions, ss)
	}
	slices.SortFunc(s.Sessions, func(a, b SavedSession) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return s
}

// Restore replaces the registry's state by s (at start-up, before any
// browser connects). A tab claimed twice goes to the first session.
func (r *Registry) Restore(s Saved) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.owner, r.kind, r.since, r.sessions = map[int]string{}, map[int]Kind{}, map[int]uint64{}, map[string]*owned{}
	for _, ss := range s.Sessions {
		if ss.ID == "" {
			continue
		}
		o := r.session(ss.ID)
		for _, t := range ss.Tabs {
			if _, taken := r.owner[t.Tab]; taken || t.Tab <= 0 {
				continue
			}
			r.owner[t.Tab] = ss.ID
			r.kind[t.Tab] = Opened
			if t.Shared {
				r.kind[t.Tab] = Shared
			}
			o.tabs = append(o.tabs, t.Tab)
		}
		for _, g := range ss.Groups {
			if g.Group != NoGroup {
				o.groups[g.Slot] = g.Group
			}
		}
	}
}

// loadSaved reads tabs.json; a missing file is no state.
func loadSaved(path string) (Saved, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Saved{}, nil
	}
	if err != nil {
		return Saved{}, err
	}
	var s Saved
	err = json.Unmarshal(raw, &s)
	return s, err
}

// store writes the registry to tabs.json whenever ownership or a
// session's current tab changes, before the call that changed it returns.
// A write is a temporary file renamed over the old one, without fsync: it
// survives the daemon being killed (what restarts are about), and after a
// power loss the browser's groups, which are the truth, correct a stale
// file.
type store struct {
	path string
	reg  *Registry
	mu   sync.Mutex // one write at a time
	last []byte
	fail func(error)
}

func newStore(dir string, reg *Registry, fail func(error)) *store {
	if dir == "" {
		return nil
	}
	return &store{path: filepath.Join(dir, StateFile), reg: reg, fail: fail}
}

// save writes the current state now (unchanged state is not rewritten).
func (s *store) save() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, err := json.MarshalIndent(s.reg.Snapshot(), "", "  ")
	if err == nil && slices.Equal(raw, s.last) {
		return
	}
	if err == nil {
		err = state.WritePrivate(s.path, raw, false)
	}
	if err != nil {
		s.fail(err)
		return
	}
	s.last = raw
}
