package session

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"
)

// Sessions outlive the daemon: every stdio and HTTP session is kept in
// Options.File (sessions.json) while it lives, and a daemon that starts
// brings them back degraded, for their TTL, so a client reconnecting with
// its session id (the stdio relay does) resumes it — and what hangs off
// the session id (its tabs, internal/tabs) resumes with it. A daemon that
// stops on purpose writes nothing: its sessions stay for the next one.
// Sessions that end (closed, expired) leave the file.

// FileName is the sessions file in the state directory.
const FileName = "sessions.json"

type record struct {
	ID        string    `json:"session"`
	Transport Transport `json:"transport"`
	Client    Client    `json:"client"`
	Created   time.Time `json:"created_at"`
	// Who may resume it (binding.go): the credential, the remote's name,
	// and a stdio session's resume key as its SHA-256 (never the key).
	Principal string          `json:"principal"`
	Remote    string          `json:"remote,omitempty"`
	KeyHash   string          `json:"resume_key_sha256,omitempty"`
	Init      json.RawMessage `json:"initialize,omitempty"`
}

type sessionsFile struct {
	Version  int      `json:"version"`
	Sessions []record `json:"sessions"`
}

// kept reports the transports whose sessions are kept in the file (the
// panel's session is made again at each start).
func kept(t Transport) bool { return t == Stdio || t == HTTP }

// restore brings back the sessions of the file, degraded (called by New).
func (m *Manager) restore() {
	if m.opts.File == "" {
		return
	}
	raw, err := os.ReadFile(m.opts.File)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var f sessionsFile
	if err == nil {
		err = json.Unmarshal(raw, &f)
	}
	if err != nil {
		m.opts.Logger.Warn("sessions file unreadable; no session resumes", "file", m.opts.File, "err", err)
		return
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range f.Sessions {
		if r.ID == "" || len(r.ID) > 64 || !kept(r.Transport) || m.sessions[r.ID] != nil || !resumable(r) {
			continue
		}
		s := m.newSession(r.ID, r.Transport, r.Created)
		s.client, s.state, s.lastSeen = r.Client, Degraded, now
		s.principal, s.remote, s.keyHash, s.init = r.Principal, r.Remote, r.KeyHash, r.Init
	}
	if n := len(m.sessions); n > 0 {
		m.opts.Logger.Info("sessions restored; they resume when their clients reconnect", "sessions", n)
	}
}

// resumable reports a record some client can resume: it names its
// credential, and a stdio session its resume key (a file of an older
// daemon, from before sessions were bound, holds neither: its sessions
// end with it).
func resumable(r record) bool {
	if r.Principal == "" {
		return false
	}
	return r.Transport != Stdio || len(r.KeyHash) == sha256.Size*2
}

// persister hands the sessions file to one writer goroutine, so that no
// caller waits on the disk: a stdio client's start used to wait for two
// writes (a temp file and a rename, 0.3 ms each on the bench machine, more
// under load), one when its session started and one when initialize named
// its client. persist takes the snapshot at once, so the newest one wins;
// the writer writes it moments later, and what is pending when the manager
// stops. A daemon killed in between loses that session's record: its
// client starts a new session (and is told so) instead of resuming.
type persister struct {
	mu      sync.Mutex
	pending []byte        // the newest snapshot not written yet
	kick    chan struct{} // capacity 1: a snapshot is pending
}

// persist snapshots the sessions for the writer, unless the manager is
// stopping (its sessions stay for the next daemon).
func (m *Manager) persist() {
	if m.opts.File == "" || m.ctx.Err() != nil {
		return
	}
	m.file.mu.Lock()
	raw, err := m.snapshotFile()
	if err == nil {
		m.file.pending = raw
	}
	m.file.mu.Unlock()
	if err != nil {
		m.opts.Logger.Error("saving sessions failed; a daemon restart may not resume them", "err", err)
		return
	}
	select {
	case m.file.kick <- struct{}{}:
	default: // the writer has one to pick up already
	}
}

func (m *Manager) snapshotFile() ([]byte, error) {
	m.mu.Lock()
	f := sessionsFile{Version: 1, Sessions: []record{}}
	for _, s := range m.sessions {
		s.mu.Lock()
		if kept(s.transport) {
			f.Sessions = append(f.Sessions, record{ID: s.id, Transport: s.transport, Client: s.client, Created: s.created,
				Principal: s.principal, Remote: s.remote, KeyHash: s.keyHash, Init: s.init})
		}
		s.mu.Unlock()
	}
	m.mu.Unlock()
	slices.SortFunc(f.Sessions, func(a, b record) int { return a.Created.Compare(b.Created) })
	return json.MarshalIndent(f, "", "  ")
}

// writeFile writes each snapshot persist hands it until ctx ends, then
// the one still pending.
func (m *Manager) writeFile(ctx context.Context) {
	for {
		select {
		case <-m.file.kick:
			m.flushFile()
		case <-ctx.Done():
			m.flushFile()
			return
		}
	}
}

func (m *Manager) flushFile() {
	m.file.mu.Lock()
	raw := m.file.pending
	m.file.pending = nil
	m.file.mu.Unlock()
	if raw == nil {
		return
	}
	// Not fsynced: the file is for a daemon that dies (a crash, a kill),
	// whose write the kernel keeps; after the machine itself goes down no
	// client is left to resume.
	if err := m.opts.write(m.opts.File, raw); err != nil {
		m.opts.Logger.Error("saving sessions failed; a daemon restart may not resume them", "err", err)
	}
}

// RestoreCommand puts back a command a previous daemon ran for this
// session and handed to its client (who holds its correlation id): it
// is finished, with result (the result it reached, or an error saying it
// was lost with the daemon). It counts against the retention caps as any
// result does.
func (s *Session) RestoreCommand(id, tool, what string, started, ended time.Time, result any) {
	s.mu.Lock()
	if _, dup := s.cmds[id]; dup {
		s.mu.Unlock()
		return
	}
	s.seq++
	c := &Command{ID: id, Seq: s.seq, Tool: tool, What: what, Started: started, done: make(chan struct{}), sess: s}
	c.finish(result, ended)
	s.cmds[id] = c
	s.history = append(s.history, c)
	s.mu.Unlock()
	s.m.retain(s, c)
}
