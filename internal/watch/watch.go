// Package watch is agent_watch (SAFETY.md): automatic, read-only context
// when the browser shows errors, failed requests or security problems.
// Signals come from the capture buffers ([Scanner]); a [Watcher] decides
// which fire — only the event kinds enabled, at most RateLimitPerMin per
// minute, and the same signal once per dedupe window — and turns each
// into a context [Envelope]. What a fired trigger may run is read-only
// only; the bridge enforces it through mcpserver.CallTrigger and the
// approval engine's RequireForTrigger.
//
// Time comes from an injected clock, so rate limit and dedupe are tested
// in virtual time.
package watch

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// The event kinds a watch can be enabled for.
const (
	Errors        = "errors"         // console errors and uncaught exceptions
	NetworkErrors = "network_errors" // failed loads and statuses ≥ 400
	Security      = "security"       // blocked requests, CORS and mixed-content failures
)

// Kinds lists every event kind.
var Kinds = []string{Errors, NetworkErrors, Security}

// Settings is a watch's configuration.
type Settings struct {
	Enabled         bool     `json:"enabled"`
	Events          []string `json:"events"`
	RateLimitPerMin int      `json:"rate_limit_per_min"`
	DedupeWindowSec int      `json:"dedupe_window_seconds"`
}

// Defaults for Settings fields left zero.
const (
	DefaultRateLimit    = 6
	DefaultDedupeWindow = 60
	MaxRateLimit        = 120
	MaxDedupeWindow     = 86400
)

// Normalize fills defaults and checks the settings.
func (s Settings) Normalize() (Settings, error) {
	if len(s.Events) == 0 {
		s.Events = slices.Clone(Kinds)
	}
	for _, e := range s.Events {
		if !slices.Contains(Kinds, e) {
			return s, fmt.Errorf("watch: event %q: want errors, network_errors or security", e)
		}
	}
	slices.Sort(s.Events)
	s.Events = slices.Compact(s.Events)
	if s.RateLimitPerMin == 0 {
		s.RateLimitPerMin = DefaultRateLimit
	}
	if s.DedupeWindowSec == 0 {
		s.DedupeWindowSec = DefaultDedupeWindow
	}
	if s.RateLimitPerMin < 1 || s.RateLimitPerMin > MaxRateLimit {
		return s, fmt.Errorf("watch: rate_limit_per_min must be 1 … %d", MaxRateLimit)
	}
	if s.DedupeWindowSec < 1 || s.DedupeWindowSec > MaxDedupeWindow {
		return s, fmt.Errorf("watch: dedupe_window_seconds must be 1 … %d", MaxDedupeWindow)
	}
	return s, nil
}

// Evidence is one item behind a signal.
type Evidence struct {
	Kind   string    `json:"kind"` // error | network
	Title  string    `json:"title"`
	Detail string    `json:"detail,omitempty"`
	URL    string    `json:"url,omitempty"`
	At     time.Time `json:"at"`
}

// Signal is something the browser showed that may trigger the watch.
type Signal struct {
	Event     string // Errors, NetworkErrors or Security
	SessionID string // the session owning the tab
	TabID     int
	URL       string // the page's URL
	// Key identifies the signal for dedupe within its tab and event, e.g.
	// the error message or "POST /login 500".
	Key      string
	Summary  string
	Evidence []Evidence
	At       time.Time
}

// Redaction is the envelope's redaction counters.
type Redaction struct {
	PolicyVersion string `json:"policy_version"`
	RedactedCount int64  `json:"redacted_count"`
	BlockedCount  int64  `json:"blocked_count"`
}

// Envelope is the context a fired trigger builds.
type Envelope struct {
	ContextID string     `json:"context_id"`
	Session   string     `json:"session"`
	Tab       int        `json:"tab"`
	URL       string     `json:"url"`
	Trigger   string     `json:"trigger"`
	Summary   string     `json:"summary"`
	Evidence  []Evidence `json:"evidence"`
	// Context is what the read-only modes the trigger ran answered
	// (compact text, redacted), by "tool.mode".
	Context   map[string]string `json:"context,omitempty"`
	Redaction Redaction         `json:"redaction"`
	At        time.Time         `json:"at"`
}

// Verdict is what Offer decided.
type Verdict string

// The verdicts.
const (
	Fired       Verdict = "fired"
	Disabled    Verdict = "disabled"
	Filtered    Verdict = "filtered"     // the event kind is not enabled
	Deduped     Verdict = "deduped"      // the same signal fired within the dedupe window
	RateLimited Verdict = "rate_limited" // the per-minute budget is spent
)

// Stats counts verdicts since the watch was last enabled.
type Stats struct {
	Fired       int `json:"fired"`
	Deduped     int `json:"deduped"`
	RateLimited int `json:"rate_limited"`
	Filtered    int `json:"filtered"`
}

// Status is configure agent_watch status's answer.
type Status struct {
	Settings
	Stats  Stats      `json:"stats"`
	Recent []Envelope `json:"recent"`
}

// maxRecent bounds the envelopes kept for status; maxKeys the dedupe keys.
const (
	maxRecent = 20
	maxKeys   = 4096
)

// Watcher decides which signals fire. Safe for concurrent use.
type Watcher struct {
	now func() time.Time

	mu       sync.Mutex
	settings Settings
	stats    Stats
	fired    []time.Time          // fire times within the last minute
	seen     map[string]time.Time // dedupe key → last fire
	recent   []Envelope
	n        uint64
}

// New returns a disabled Watcher on the clock now (nil: time.Now).
func New(now func() time.Time) *Watcher {
	if now == nil {
		now = time.Now
	}
	s, _ := Settings{}.Normalize()
	return &Watcher{now: now, settings: s, seen: map[string]time.Time{}}
}

// Configure replaces the settings (normalized); enabling resets the
// stats, the rate budget and the dedupe memory.
func (w *Watcher) Configure(s Settings) (Settings, error) {
	s, err := s.Normalize()
	if err != nil {
		return s, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if s.Enabled && !w.settings.Enabled {
		w.stats, w.fired, w.seen = Stats{}, nil, map[string]time.Time{}
	}
	w.settings = s
	return s, nil
}

// Settings returns the current settings.
func (w *Watcher) Settings() Settings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.settings
}

// Enabled reports whether the watch is on.
func (w *Watcher) Enabled() bool { return w.Settings().Enabled }

// Status returns settings, stats and the recent envelopes, newest last.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Status{Settings: w.settings, Stats: w.stats, Recent: slices.Clone(w.recent)}
}

// Offer decides whether sig fires. A fired signal's envelope is returned;
// the caller gathers read-only context into it and then calls Record.
func (w *Watcher) Offer(sig Signal) (Envelope, Verdict) {
	now := w.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.settings
	switch {
	case !s.Enabled:
		return Envelope{}, Disabled
	case !slices.Contains(s.Events, sig.Event):
		w.stats.Filtered++
		return Envelope{}, Filtered
	}
	window := time.Duration(s.DedupeWindowSec) * time.Second
	key := fmt.Sprintf("%s|%d|%s", sig.Event, sig.TabID, sig.Key)
	if last, ok := w.seen[key]; ok && now.Sub(last) < window {
		w.stats.Deduped++
		return Envelope{}, Deduped
	}
	w.fired = slices.DeleteFunc(w.fired, func(t time.Time) bool { return now.Sub(t) >= time.Minute })
	if len(w.fired) >= s.RateLimitPerMin {
		w.stats.RateLimited++
		return Envelope{}, RateLimited
	}
	w.fired = append(w.fired, now)
	w.remember(key, now, window)
	w.stats.Fired++
	w.n++
	at := sig.At
	if at.IsZero() {
		at = now
	}
	return Envelope{
		ContextID: fmt.Sprintf("ctx_%d_%d", now.Unix(), w.n), Session: sig.SessionID, Tab: sig.TabID, URL: sig.URL,
		Trigger: sig.Event, Summary: sig.Summary, Evidence: sig.Evidence, At: at.UTC(),
	}, Fired
}

// remember records a fire of key, forgetting keys past the window and,
// beyond maxKeys, the oldest.
func (w *Watcher) remember(key string, now time.Time, window time.Duration) {
	for k, t := range w.seen {
		if now.Sub(t) >= window {
			delete(w.seen, k)
		}
	}
	if len(w.seen) >= maxKeys {
		var oldest string
		var ot time.Time
		for k, t := range w.seen {
			if oldest == "" || t.Before(ot) {
				oldest, ot = k, t
			}
		}
		delete(w.seen, oldest)
	}
	w.seen[key] = now
}

// Record keeps a finished envelope for status.
func (w *Watcher) Record(env Envelope) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recent = append(w.recent, env)
	if over := len(w.recent) - maxRecent; over > 0 {
		w.recent = append(w.recent[:0:0], w.recent[over:]...)
	}
}
