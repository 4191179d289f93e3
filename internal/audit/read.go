package audit

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"
)

// Limits of Read.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
	maxLine      = 64 << 10 // longer lines (never written by Write) are skipped
)

// Filter selects entries; zero fields match everything.
type Filter struct {
	SessionID string
	Kind      string
	Action    string
	RequestID string
	Result    string
	Since     time.Time // entries at or after
	AfterSeq  uint64    // the cursor: entries with a greater Seq only
	// Forward returns the first matches after AfterSeq instead of the
	// newest ones; a non-zero AfterSeq implies it. Forward with AfterSeq 0
	// reads from the oldest retained entry.
	Forward bool
}

func (f *Filter) match(e *Entry) bool {
	return (f.SessionID == "" || e.SessionID == f.SessionID) && (f.Kind == "" || e.Kind == f.Kind) &&
		(f.Action == "" || e.Action == f.Action) && (f.RequestID == "" || e.RequestID == f.RequestID) &&
		(f.Result == "" || e.Result == f.Result) && (f.Since.IsZero() || !e.Time.Before(f.Since)) &&
		e.Seq > f.AfterSeq
}

// Tail returns the newest n entries (n ≤ 0: DefaultLimit; at most
// MaxLimit), oldest first.
func (l *Log) Tail(n int) ([]Entry, error) { return l.Read(Filter{}, n) }

// Read returns up to limit entries matching f, oldest first (limit ≤ 0:
// DefaultLimit; at most MaxLimit). Without a cursor they are the newest
// matches; with f.AfterSeq (or f.Forward) they are the first matches after
// the cursor, so passing the last Seq returned pages forward. It reads the rotated files
// too, newest first, and stops as soon as older files cannot matter.
// Lines that do not parse (a write torn by a crash) are skipped.
func (l *Log) Read(f Filter, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	f.Forward = f.Forward || f.AfterSeq > 0
	var out []Entry // matches from the files read so far, oldest first
	for i := 0; i <= l.opts.Keep; i++ {
		path := l.path
		if i > 0 {
			path = rotated(l.path, i)
		}
		got, oldest, err := scanFile(path, &f, limit)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(got, out...)
		if !f.Forward && len(out) >= limit || f.Forward && oldest != 0 && oldest <= f.AfterSeq {
			break
		}
	}
	// A rotation between two files' scans can show an entry twice.
	slices.SortFunc(out, func(a, b Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	out = slices.CompactFunc(out, func(a, b Entry) bool { return a.Seq == b.Seq })
	if f.Forward {
		return out[:min(limit, len(out))], nil
	}
	return out[max(len(out)-limit, 0):], nil
}

// scanFile returns the matches in one file — the last limit of them, or
// with a cursor the first limit — and the smallest Seq seen in it.
func scanFile(path string, f *Filter, limit int) (matches []Entry, oldest uint64, err error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Seq == 0 {
			continue
		}
		if oldest == 0 || e.Seq < oldest {
			oldest = e.Seq
		}
		if !f.match(&e) || f.Forward && len(matches) >= limit {
			continue
		}
		matches = append(matches, e)
		if !f.Forward && len(matches) > 2*limit {
			matches = append(matches[:0], matches[len(matches)-limit:]...)
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return nil, 0, fmt.Errorf("audit: reading %s: %w", path, err)
	}
	if !f.Forward && len(matches) > limit {
		matches = matches[len(matches)-limit:]
	}
	return matches, oldest, nil
}
