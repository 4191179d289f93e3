package remote

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
)

// Config configures a Registry. Dir is required.
type Config struct {
	Dir string // the state directory
	// Ended is told the principal of every remote agent whose credential
	// stops working — revoked (here or by the CLI), expired, or gone
	// from the store — once: the daemon ends its sessions there.
	Ended func(principal string)
	// Now is the clock; default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Registry is the daemon's view of the remote agents: it recognises their
// credentials (creds.Remotes), gives their scopes, and ends an agent's
// sessions when its credential stops working. The store is the truth: a
// change the CLI makes is read on the next request; Run ends agents on
// time as they expire.
type Registry struct {
	cfg  Config
	poke chan struct{} // Run re-reads what to wait for

	mu     sync.Mutex
	agents []Agent
	stamp  stamp
	ended  map[string]bool // principals already told to Ended
}

type stamp struct {
	size, mod int64
	ok        bool
}

func stampOf(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{size: fi.Size(), mod: fi.ModTime().UnixNano(), ok: true}
}

// Open loads the store.
func Open(cfg Config) *Registry {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Ended == nil {
		cfg.Ended = func(string) {}
	}
	r := &Registry{cfg: cfg, poke: make(chan struct{}, 1), ended: map[string]bool{}}
	r.mu.Lock()
	r.reloadLocked()
	r.mu.Unlock()
	return r
}

// reloadLocked reads the store when it changed and returns the
// principals that left it.
func (r *Registry) reloadLocked() (gone []string) {
	st := stampOf(Path(r.cfg.Dir))
	if st == r.stamp && st.ok == r.stamp.ok {
		return nil
	}
	agents, err := Load(r.cfg.Dir)
	if err != nil {
		r.cfg.Logger.Warn("remote agents' store unreadable; no remote agent is accepted until it is fixed", "err", err)
		agents = nil
	}
	for _, old := range r.agents {
		if !slices.ContainsFunc(agents, func(a Agent) bool { return a.ID == old.ID }) {
			gone = append(gone, old.Principal())
		}
	}
	r.agents, r.stamp = agents, st
	select {
	case r.poke <- struct{}{}:
	default:
	}
	return gone
}

// refresh re-reads the store if it changed and ends the agents that left
// it or expired.
func (r *Registry) refresh() {
	now := r.cfg.Now()
	r.mu.Lock()
	gone := r.reloadLocked()
	for _, a := range r.agents {
		if !a.Live(now) {
			gone = append(gone, a.Principal())
		}
	}
	var tell []string
	for _, p := range gone {
		if !r.ended[p] {
			r.ended[p] = true
			tell = append(tell, p)
		}
	}
	r.mu.Unlock()
	for _, p := range tell {
		r.cfg.Logger.Info("remote agent's credential ended; its sessions end", "principal", p)
		r.cfg.Ended(p)
	}
}

// Identify is creds.Remotes: the live remote agent whose credential tok
// is. Every stored hash is compared, in constant time.
func (r *Registry) Identify(tok string) (creds.Identity, bool) {
	if len(tok) != len(tokenPrefix)+64 {
		return creds.Identity{}, false
	}
	r.refresh()
	sum := []byte(hashToken(tok))
	now := r.cfg.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	var found *Agent
	for i := range r.agents {
		if subtle.ConstantTimeCompare(sum, []byte(r.agents[i].TokenSHA256)) == 1 {
			found = &r.agents[i]
		}
	}
	if found == nil || !found.Live(now) {
		return creds.Identity{}, false
	}
	return creds.Identity{Role: creds.Remote, Principal: found.Principal(), Name: found.Name, Expires: found.Expires}, true
}

// Scope returns the scope of the live agent a session is bound to, and
// false when the principal names no live remote agent (a local session,
// or one whose credential ended).
func (r *Registry) Scope(principal string) (Scope, bool) {
	now := r.cfg.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.agents {
		if a.Principal() == principal && a.Live(now) {
			return ScopeOf(a), true
		}
	}
	return Scope{}, false
}

// Info is a remote agent as `remote list` and the panel show it (never
// its credential or hash).
type Info struct {
	Name    string    `json:"name"`
	Tools   []string  `json:"tools"`
	Origins []string  `json:"origins"`
	Created time.Time `json:"created_at"`
	Expires time.Time `json:"expires_at"`
	Expired bool      `json:"expired"`
}

// InfoOf describes an agent at now.
func InfoOf(a Agent, now time.Time) Info {
	return Info{Name: a.Name, Tools: a.Tools, Origins: a.Origins, Created: a.Created, Expires: a.Expires, Expired: !a.Live(now)}
}

// List describes every stored agent, oldest first.
func (r *Registry) List() []Info {
	r.refresh()
	now := r.cfg.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Info, 0, len(r.agents))
	for _, a := range r.agents {
		out = append(out, InfoOf(a, now))
	}
	return out
}

// Revoke removes the agent named name from the store and ends its
// sessions at once.
func (r *Registry) Revoke(name string) error {
	r.mu.Lock()
	_, err := revoke(r.cfg.Dir, name)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	r.refresh()
	return nil
}

// Run ends each agent's sessions when its credential expires, on time,
// until ctx ends. It also picks up what the CLI changed.
func (r *Registry) Run(ctx context.Context) {
	for {
		r.refresh()
		wait := r.untilNextExpiry()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-r.poke:
			t.Stop()
		}
	}
}

// untilNextExpiry is how long until the next live agent expires (an hour
// when none will: the store is re-read then, and on every request).
func (r *Registry) untilNextExpiry() time.Duration {
	now := r.cfg.Now()
	wait := time.Hour
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.agents {
		if a.Live(now) {
			wait = min(wait, a.Expires.Sub(now))
		}
	}
	return wait
}
