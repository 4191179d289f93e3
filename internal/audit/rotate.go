package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// rotated is the path of the i-th rotated file (1 = newest).
func rotated(path string, i int) string { return path + "." + strconv.Itoa(i) }

// rotate closes the current file (after an fsync), shifts audit.jsonl.N to
// .N+1 (dropping the one past Keep), renames the current file to .1 and
// opens a fresh one. Called with l.mu held.
func (l *Log) rotate() error {
	if err := errors.Join(l.f.Sync(), l.f.Close()); err != nil {
		l.f = nil
		return fmt.Errorf("audit: closing %s for rotation: %w", l.path, err)
	}
	l.f = nil
	if err := os.Remove(rotated(l.path, l.opts.Keep)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit: rotating: %w", err)
	}
	for i := l.opts.Keep - 1; i >= 1; i-- {
		if err := os.Rename(rotated(l.path, i), rotated(l.path, i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("audit: rotating: %w", err)
		}
	}
	if err := os.Rename(l.path, rotated(l.path, 1)); err != nil {
		return fmt.Errorf("audit: rotating: %w", err)
	}
	l.torn = false
	return l.openFile()
}

// tailBytes is how much of a file's end lastSeq reads.
const tailBytes = 64 << 10

// lastSeq returns the Seq of the last whole entry in the file at path, or
// 0 when there is none.
func lastSeq(path string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	off := max(fi.Size()-tailBytes, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	if err != nil {
		return 0
	}
	lines := bytes.Split(buf, []byte{'\n'})
	for i := len(lines) - 1; i >= 0; i-- {
		var e Entry
		if json.Unmarshal(lines[i], &e) == nil && e.Seq > 0 {
			return e.Seq
		}
	}
	return 0
}
