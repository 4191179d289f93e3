package browsers

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// The browsers table: every browser profile the daemon has seen, with its
// slot and the run (browser start) it was last seen in. Kept in
// browsers.json so that tab ids, and the ownership kept in them, mean the
// same browser after a daemon restart.

// FileName is the table's file in the state directory.
const FileName = "browsers.json"

// maxRecords bounds the table; the least recently seen browser that
// nothing refers to is forgotten first.
const maxRecords = 64

// record is one browser profile.
type record struct {
	BrowserID string    `json:"browser_id"`
	Slot      Slot      `json:"slot"`
	Name      string    `json:"name"`
	Profile   string    `json:"profile,omitempty"`
	RunID     string    `json:"run_id,omitempty"`
	LastSeen  time.Time `json:"last_seen"`
	// transient: an extension too old to send browser_id; never saved.
	transient bool
}

type tableFile struct {
	Version  int      `json:"version"`
	Browsers []record `json:"browsers"`
}

// loadTable reads the table; a missing file is an empty table, and one that
// does not parse is reported and replaced by the next save.
func loadTable(path string) (map[string]*record, error) {
	out := map[string]*record{}
	if path == "" {
		return out, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	var f tableFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return out, err
	}
	slots := map[Slot]bool{}
	for _, r := range f.Browsers {
		if r.BrowserID == "" || r.Slot < 0 || slots[r.Slot] {
			continue // damaged entry: its slot is free again
		}
		slots[r.Slot] = true
		out[r.BrowserID] = &r
	}
	return out, nil
}

// saveTable writes the table atomically (0600).
func saveTable(path string, recs map[string]*record) error {
	if path == "" {
		return nil
	}
	f := tableFile{Version: 1, Browsers: []record{}}
	for _, r := range recs {
		if !r.transient {
			f.Browsers = append(f.Browsers, *r)
		}
	}
	slices.SortFunc(f.Browsers, func(a, b record) int { return int(a.Slot - b.Slot) })
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return state.WritePrivate(path, raw, true)
}

// shortID is how agents and the panel name a browser: the first 8
// characters of its browser_id.
func shortID(browserID string) string {
	if len(browserID) > 8 {
		return browserID[:8]
	}
	return browserID
}
