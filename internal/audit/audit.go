// Package audit is Gasoline's audit log: an append-only JSON-lines file,
// $GASOLINE_HOME/logs/audit.jsonl, with one line for every tool call and
// every approval event (SAFETY.md, "Approval engine"). It records who did
// what and what was decided — never a call's arguments or results, which
// could hold secrets — and passes every string field through the Redact
// hook anyway.
//
// The file is 0600, rotated by size (audit.jsonl.1 is the newest rotated
// file, .Keep the oldest), and read back with Tail and Read for
// configure {what:"audit_log"}.
//
// Durability: each Write is one write(2) of one whole line to a file opened
// O_APPEND, under the Log's lock, so lines never interleave and an entry
// Write returned for survives a crash of the daemon. By default there is no
// fsync per entry (an OS crash or power loss may lose the last few seconds);
// rotation and Close fsync the file. Options.SyncEveryWrite fsyncs each
// entry before Write returns.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// FileName is the log's name in the state directory's logs folder.
const FileName = "audit.jsonl"

// Kinds of entries.
const (
	KindCall     = "call"     // a tool call and its outcome
	KindApproval = "approval" // an approval event: requested, approved, denied, expired, consumed, rejected
)

// Results of a call.
const (
	ResultOK      = "ok"
	ResultError   = "error"
	ResultBlocked = "blocked" // refused by the gate, the policy or redaction
)

// MaxField is the longest a string field is stored, after redaction.
const MaxField = 1024

// Entry is one line of the log. Seq is assigned by Write (it increases by
// one per entry across rotations and restarts and is the cursor of Read);
// Time is filled when zero. There is deliberately no field for arguments
// or results.
type Entry struct {
	Seq        uint64    `json:"seq"`
	Time       time.Time `json:"time"`
	SessionID  string    `json:"session_id,omitempty"`
	Kind       string    `json:"kind"` // KindCall | KindApproval
	Action     string    `json:"action,omitempty"`
	Class      string    `json:"class,omitempty"`
	Decision   string    `json:"decision,omitempty"` // e.g. policy, site, approval, approval_required, or the event type
	RequestID  string    `json:"request_id,omitempty"`
	ApprovalID string    `json:"approval_id,omitempty"`
	// Target and Steps say what an approval request was for, in words
	// (each step of a batch); Describe, Notes, Detail and Page are the
	// rest of what the user was shown (the whole script, the whole
	// address, a policy change), so the log carries the prompt's words.
	Target     string   `json:"target,omitempty"`
	Steps      []string `json:"steps,omitempty"`
	Describe   string   `json:"describe,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	Detail     string   `json:"detail,omitempty"`
	Page       string   `json:"page,omitempty"` // the tab's title and address, as the browser reports them
	Reason     string   `json:"reason,omitempty"`
	Warning    string   `json:"warning,omitempty"` // an approval request's page warning
	DurationMS int64    `json:"duration_ms,omitempty"`
	Result     string   `json:"result,omitempty"` // ResultOK | ResultError | ResultBlocked
}

// Options configures a Log. The zero value is usable.
type Options struct {
	MaxBytes int64 // rotate before the file would pass this; default 10 MiB
	Keep     int   // rotated files kept (audit.jsonl.1 … .Keep); default 5
	// Redact, when set, is applied to every string field of every entry
	// before it is written (the redaction gateway's server stage). An
	// error or a panic in it fails the Write: nothing is written.
	Redact         func(string) (string, error)
	SyncEveryWrite bool             // fsync after each entry (see the package doc)
	Now            func() time.Time // default time.Now
}

// Log is an open audit log. Safe for concurrent use.
type Log struct {
	path string
	opts Options

	mu   sync.Mutex
	f    *os.File
	size int64
	seq  uint64
	torn bool // the last write failed part-way: start the next one on a new line
}

// DefaultPath returns $GASOLINE_HOME/logs/audit.jsonl (or the OS default
// state directory's).
func DefaultPath() (string, error) {
	dir, err := state.Dir()
	if err != nil {
		return "", fmt.Errorf("audit: locating the state directory: %w", err)
	}
	return filepath.Join(state.LogDir(dir), FileName), nil
}

// Open opens (creating, 0600, in a 0700 folder) the log at path for
// appending and finds the last sequence number written.
func Open(path string, opts *Options) (*Log, error) {
	l := &Log{path: path}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.MaxBytes < 0 || l.opts.Keep < 0 {
		return nil, errors.New("audit: negative MaxBytes or Keep")
	}
	if l.opts.MaxBytes == 0 {
		l.opts.MaxBytes = 10 << 20
	}
	if l.opts.Keep == 0 {
		l.opts.Keep = 5
	}
	if l.opts.Now == nil {
		l.opts.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: creating %s: %w", filepath.Dir(path), err)
	}
	if err := l.openFile(); err != nil {
		return nil, err
	}
	l.seq = lastSeq(path)
	if l.seq == 0 {
		l.seq = lastSeq(rotated(path, 1))
	}
	return l, nil
}

// openFile opens the current file for appending and tightens its mode.
func (l *Log) openFile() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit: opening %s: %w", l.path, err)
	}
	if err := tighten(f); err != nil {
		f.Close()
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	l.f, l.size = f, fi.Size()
	l.torn = l.torn || !endsWithNewline(l.path, l.size)
	return nil
}

// endsWithNewline reports whether the file's last byte is a newline (an
// empty file counts as ending with one). A file that does not was cut
// mid-line by a crash: the next entry starts on a new line.
func endsWithNewline(path string, size int64) bool {
	if size == 0 {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], size-1); err != nil {
		return true
	}
	return b[0] == '\n'
}

// Path is the current file's path.
func (l *Log) Path() string { return l.path }

// Write appends e (redacted, with Seq and Time filled) as one line,
// rotating first if the line would take the file past MaxBytes. An error
// means the entry may not be on disk: the dispatcher fails closed on it for
// mutating calls.
func (l *Log) Write(e Entry) error {
	if err := l.redact(&e); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		if err := l.openFile(); err != nil {
			return err
		}
	}
	e.Seq = l.seq + 1
	if e.Time.IsZero() {
		e.Time = l.opts.Now()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: encoding: %w", err)
	}
	line = append(line, '\n')
	if l.torn {
		line = append([]byte{'\n'}, line...)
	}
	if l.size > 0 && l.size+int64(len(line)) > l.opts.MaxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	if err != nil {
		l.torn = n > 0
		return fmt.Errorf("audit: writing %s: %w", l.path, err)
	}
	l.torn = false
	l.seq = e.Seq
	if l.opts.SyncEveryWrite {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit: syncing %s: %w", l.path, err)
		}
	}
	return nil
}

// MaxSteps caps the steps of one entry (a batch holds at most 50).
const MaxSteps = 64

// redact applies the hook and the length cap to every string field.
func (l *Log) redact(e *Entry) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("audit: the redaction hook failed; the entry was not written")
		}
	}()
	fields := []*string{&e.SessionID, &e.Kind, &e.Action, &e.Class, &e.Decision, &e.RequestID, &e.ApprovalID, &e.Target, &e.Reason, &e.Warning, &e.Result,
		&e.Describe, &e.Page}
	for _, list := range []*[]string{&e.Steps, &e.Notes} {
		if len(*list) > MaxSteps {
			*list = (*list)[:MaxSteps]
		}
		*list = append([]string(nil), *list...)
		for i := range *list {
			fields = append(fields, &(*list)[i])
		}
	}
	for _, s := range fields {
		if err := l.redactField(s, MaxField); err != nil {
			return err
		}
	}
	return l.redactField(&e.Detail, MaxDetail)
}

// MaxDetail caps Entry.Detail: the whole of what a prompt showed (a
// script is refused above this size before anyone is asked).
const MaxDetail = 32<<10 + MaxField

// redactField redacts one field, then cuts it to max (a cut never comes
// before redaction: a secret cut in half would no longer be recognised).
func (l *Log) redactField(s *string, max int) error {
	if l.opts.Redact != nil && *s != "" {
		r, rerr := l.opts.Redact(*s)
		if rerr != nil {
			return fmt.Errorf("audit: redaction failed, the entry was not written: %w", rerr)
		}
		*s = r
	}
	if len(*s) > max {
		*s = truncate(*s, max)
	}
	return nil
}

// truncate cuts s to at most n bytes on a UTF-8 boundary and marks it.
func truncate(s string, n int) string {
	const mark = "…[truncated]"
	n -= len(mark)
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + mark
}

// Sync flushes the current file to stable storage.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return l.f.Sync()
}

// Close syncs and closes the file. Writes after Close reopen it.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := errors.Join(l.f.Sync(), l.f.Close())
	l.f = nil
	return err
}
