package browsers

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/extlink"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

// Config configures a Hub. Zero values are valid.
type Config struct {
	// Dir is the state directory holding browsers.json; "" keeps the
	// table in memory only (tests).
	Dir string
	// InUse reports whether something (a session's tabs or tab group)
	// still refers to a slot; such a slot is never given to another
	// browser. Nil: only connected browsers hold their slots.
	InUse func(Slot) bool
	// ProbeTimeout bounds the ping that checks a browser suspected of not
	// answering; default 2 s.
	ProbeTimeout time.Duration
	// MaxInFlight bounds the calls waiting on one browser; default 256.
	MaxInFlight int
	Now         func() time.Time
	Logger      *slog.Logger
}

// Hub tracks the connected browsers and routes calls to them. Its methods
// are safe for concurrent use.
type Hub struct {
	cfg  Config
	log  *slog.Logger
	path string

	mu      sync.Mutex
	recs    map[string]*record // by browser_id
	live    map[Slot]*conn
	byLink  map[*extlink.Link]*conn
	changed chan struct{} // closed and replaced when a browser connects

	calls inflight // per tab, so a revoked tab's calls end at once
}

// conn is one connected browser.
type conn struct {
	link    *extlink.Link
	rec     *record
	since   time.Time // when it connected
	focused time.Time // when the user last focused one of its windows
	hello   time.Time // when its hello was read: anything after it shows the browser answers
	slots   chan struct{}
	live    liveness
}

// Ready is what a browser's handshake tells the rest of the daemon.
type Ready struct {
	Slot Slot
	// Restarted: the browser started again since its ownership was
	// recorded (another run_id): tab and group ids of before mean nothing.
	Restarted bool
	Info      Info
}

// New returns a Hub holding the table kept in cfg.Dir. A table that cannot
// be read is logged and started afresh.
func New(cfg Config) *Hub {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ProbeTimeout <= 0 {
		cfg.ProbeTimeout = 2 * time.Second
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 256
	}
	if cfg.InUse == nil {
		cfg.InUse = func(Slot) bool { return false }
	}
	h := &Hub{cfg: cfg, log: cfg.Logger, live: map[Slot]*conn{}, byLink: map[*extlink.Link]*conn{}}
	if cfg.Dir != "" {
		h.path = filepath.Join(cfg.Dir, FileName)
	}
	var err error
	if h.recs, err = loadTable(h.path); err != nil {
		h.log.Warn("browsers table unreadable; starting afresh (tab ids of old sessions may change)", "file", h.path, "err", err)
	}
	h.calls.init()
	return h
}

// SetInUse sets Config.InUse after construction (the tab registry that
// answers it is built later).
func (h *Hub) SetInUse(f func(Slot) bool) {
	h.mu.Lock()
	h.cfg.InUse = f
	h.mu.Unlock()
}

// Add registers a link that completed its hello: the browser keeps the
// slot it had, or gets the lowest slot nothing refers to. A link of a
// browser that is already connected (its worker restarted before the old
// link closed) replaces the old one.
func (h *Hub) Add(l *extlink.Link) Ready {
	hello := l.Hello()
	if hello == nil {
		hello = &protocol.Hello{}
	}
	now := h.cfg.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	id, transient := hello.BrowserID, false
	if id == "" { // an extension from before browser ids: this link only
		id, transient = fmt.Sprintf("link-%p", l), true
	}
	rec := h.recs[id]
	restarted := false
	if rec == nil {
		rec = &record{BrowserID: id, Slot: h.freeSlot(), transient: transient}
		h.evict()
		h.recs[id] = rec
	} else {
		restarted = rec.RunID != "" && hello.RunID != "" && rec.RunID != hello.RunID
	}
	rec.Name, rec.Profile, rec.RunID, rec.LastSeen = hello.Browser, hello.Profile, hello.RunID, now
	c := &conn{link: l, rec: rec, since: now, hello: l.LastReceived(), slots: make(chan struct{}, h.cfg.MaxInFlight)}
	if old := h.live[rec.Slot]; old != nil {
		h.log.Info("browser reconnected before its old link closed; the new link takes over", "browser", shortID(id))
	}
	h.live[rec.Slot] = c
	h.byLink[l] = c
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
	if err := saveTable(h.path, h.recs); err != nil {
		h.log.Warn("saving the browsers table failed", "err", err)
	}
	return Ready{Slot: rec.Slot, Restarted: restarted, Info: h.infoLocked(c)}
}

// freeSlot is the lowest slot no connected browser holds, no known browser
// holds, and nothing refers to. A known browser that is away and that
// nothing refers to gives its slot up (it gets another when it returns).
func (h *Hub) freeSlot() Slot {
	held := map[Slot]*record{}
	for _, r := range h.recs {
		held[r.Slot] = r
	}
	for s := Slot(0); ; s++ {
		r := held[s]
		if h.live[s] != nil || h.cfg.InUse(s) {
			continue
		}
		if r != nil {
			delete(h.recs, r.BrowserID)
		}
		return s
	}
}

// evict keeps the table under maxRecords, forgetting the least recently
// seen browsers that are away and that nothing refers to.
func (h *Hub) evict() {
	if len(h.recs) < maxRecords {
		return
	}
	var away []*record
	for _, r := range h.recs {
		if h.live[r.Slot] == nil && !h.cfg.InUse(r.Slot) {
			away = append(away, r)
		}
	}
	slices.SortFunc(away, func(a, b *record) int { return a.LastSeen.Compare(b.LastSeen) })
	for _, r := range away {
		if len(h.recs) < maxRecords {
			return
		}
		delete(h.recs, r.BrowserID)
	}
}

// Remove forgets a link that closed. It returns the browser's slot and
// whether the link was still the browser's current one (false when a newer
// link of the same browser took over, or it never completed hello).
func (h *Hub) Remove(l *extlink.Link) (Slot, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.byLink[l]
	if c == nil {
		return 0, false
	}
	delete(h.byLink, l)
	c.rec.LastSeen = h.cfg.Now()
	if h.live[c.rec.Slot] != c {
		return c.rec.Slot, false
	}
	delete(h.live, c.rec.Slot)
	if c.rec.transient {
		delete(h.recs, c.rec.BrowserID)
	}
	return c.rec.Slot, true
}

// Slot returns the slot of a connected link.
func (h *Hub) Slot(l *extlink.Link) (Slot, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.byLink[l]; c != nil {
		return c.rec.Slot, true
	}
	return 0, false
}

// Focused records that the user focused a window of l's browser: new tabs
// of sessions that have none go there.
func (h *Hub) Focused(l *extlink.Link) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.byLink[l]; c != nil {
		c.focused = h.cfg.Now()
	}
}

// Renamed records the profile name the user gave l's browser.
func (h *Hub) Renamed(l *extlink.Link, profile string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.byLink[l]
	if c == nil {
		return
	}
	c.rec.Profile = profile
	if err := saveTable(h.path, h.recs); err != nil {
		h.log.Warn("saving the browsers table failed", "err", err)
	}
}

// Connected reports whether any browser is connected.
func (h *Hub) Connected() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.live) > 0
}

// Current returns the link of the default browser (Default), or nil.
func (h *Hub) Current() *extlink.Link {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.defaultLocked(); c != nil {
		return c.link
	}
	return nil
}

// Wait returns the default browser's link, waiting until one connects or
// ctx ends.
func (h *Hub) Wait(ctx context.Context) (*extlink.Link, error) {
	for {
		h.mu.Lock()
		if c := h.defaultLocked(); c != nil {
			h.mu.Unlock()
			return c.link, nil
		}
		if h.changed == nil {
			h.changed = make(chan struct{})
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, noBrowser()
		}
	}
}

// Default returns the slot new tabs go to when the session names no
// browser and uses none yet: the browser the user focused last (or that
// connected last), preferring one that answers.
func (h *Hub) Default() (Slot, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.defaultLocked()
	if c == nil {
		return 0, noBrowser()
	}
	return c.rec.Slot, nil
}

func (h *Hub) defaultLocked() *conn {
	var best *conn
	for _, c := range h.live {
		if best == nil || better(c, best) {
			best = c
		}
	}
	return best
}

// better orders browsers for Default: one that answers first (not
// suspected, and heard from since its hello — every real browser answers
// the tab listing the daemon asks for when it connects), then the most
// recent focus (or connection).
func better(a, b *conn) bool {
	if sa, sb := a.live.suspected(a.link), b.live.suspected(b.link); sa != sb {
		return !sa
	}
	if ha, hb := a.heard(), b.heard(); ha != hb {
		return ha
	}
	ta, tb := later(a.focused, a.since), later(b.focused, b.since)
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return a.rec.Slot < b.rec.Slot
}

// heard reports a browser that sent something after its hello.
func (c *conn) heard() bool { return c.link.LastReceived().After(c.hello) }

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func noBrowser() *protocol.Error {
	return protocol.Errorf(protocol.CodeExtensionDisconnected, true,
		"no browser extension is connected: open Chrome with the Gasoline extension installed (gasoline-host doctor checks the setup)")
}

// Broadcast sends an event to every connected browser at once, each bounded
// by ctx; a browser that cannot take it is skipped and never delays the
// others.
func (h *Hub) Broadcast(ctx context.Context, method string, params any) {
	h.mu.Lock()
	links := make([]*extlink.Link, 0, len(h.live))
	for _, c := range h.live {
		links = append(links, c.link)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, l := range links {
		wg.Go(func() { l.Notify(ctx, method, params) })
	}
	wg.Wait()
}
