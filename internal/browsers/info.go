package browsers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Info describes a browser to agents (observe tabs, configure health) and
// to the panel.
type Info struct {
	// ID is how a call names the browser (the browser argument): the
	// first 8 characters of its browser_id.
	ID      string `json:"id"`
	Name    string `json:"name"`              // e.g. "Chromium/156"
	Profile string `json:"profile,omitempty"` // the name the user gave it
	// State is connected, unresponsive (connected, answers nothing) or
	// disconnected (away; sessions still hold tabs in it).
	State string `json:"state"`
	// Default: new tabs of sessions that use no browser yet go here.
	Default bool `json:"default,omitempty"`
	Slot    Slot `json:"-"`
}

// The states of Info.
const (
	StateConnected    = "connected"
	StateUnresponsive = "unresponsive"
	StateDisconnected = "disconnected"
)

// Label is the browser in words: name, id and profile.
func (i Info) Label() string {
	s := i.ID
	if i.Name != "" {
		s = i.Name + " [" + i.ID + "]"
	}
	if i.Profile != "" {
		s += fmt.Sprintf(" profile %q", i.Profile)
	}
	return s
}

func (h *Hub) infoLocked(c *conn) Info {
	i := Info{ID: shortID(c.rec.BrowserID), Name: c.rec.Name, Profile: c.rec.Profile, State: StateConnected, Slot: c.rec.Slot}
	if c.live.suspected(c.link) {
		i.State = StateUnresponsive
	}
	return i
}

// List returns the connected browsers and those away that something still
// refers to, by slot.
func (h *Hub) List() []Info {
	h.mu.Lock()
	defer h.mu.Unlock()
	def := h.defaultLocked()
	out := []Info{}
	for _, c := range h.live {
		i := h.infoLocked(c)
		i.Default = c == def
		out = append(out, i)
	}
	for _, r := range h.recs {
		if h.live[r.Slot] == nil && h.cfg.InUse(r.Slot) {
			out = append(out, Info{ID: shortID(r.BrowserID), Name: r.Name, Profile: r.Profile, State: StateDisconnected, Slot: r.Slot})
		}
	}
	slices.SortFunc(out, func(a, b Info) int { return int(a.Slot - b.Slot) })
	return out
}

// Codes of Resolve's errors.
const (
	CodeUnknownBrowser   = "unknown_browser"
	CodeAmbiguousBrowser = "ambiguous_browser"
)

var listTabs = &tools.Next{Tool: "observe", Arguments: map[string]any{"what": "tabs"}}

// Resolve finds the connected browser a call names: its id (or a longer
// prefix of its browser_id), or — case-insensitively, when only one
// connected browser matches — its profile name, its name (with or without
// the version), or "name profile".
func (h *Hub) Resolve(name string) (Slot, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	h.mu.Lock()
	defer h.mu.Unlock()
	var hits []*conn
	for _, c := range h.live {
		if matches(c.rec, want) {
			hits = append(hits, c)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0].rec.Slot, nil
	case 0:
		return 0, &tools.Error{Code: CodeUnknownBrowser, NextAction: listTabs,
			Message: fmt.Sprintf("no connected browser is called %q; connected: %s (observe tabs lists them)", name, h.namesLocked())}
	}
	return 0, &tools.Error{Code: CodeAmbiguousBrowser, NextAction: listTabs,
		Message: fmt.Sprintf("%q matches %d connected browsers; name one by its id: %s", name, len(hits), h.namesLocked())}
}

func matches(r *record, want string) bool {
	id := strings.ToLower(r.BrowserID)
	name := strings.ToLower(r.Name)
	profile := strings.ToLower(r.Profile)
	brand, _, _ := strings.Cut(name, "/")
	switch {
	case want == "":
		return false
	case len(want) >= 4 && strings.HasPrefix(id, want):
		return true
	case profile != "" && (want == profile || want == name+" "+profile || want == brand+" "+profile):
		return true
	}
	return want == name || want == brand
}

func (h *Hub) namesLocked() string {
	var names []string
	for _, c := range h.live {
		names = append(names, describe(c.rec))
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
