package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func open(t *testing.T, opts *Options) (*Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "logs", FileName)
	l, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

func call(i int) Entry {
	return Entry{
		SessionID: fmt.Sprintf("s%d", i%3), Kind: KindCall, Action: "interact.click", Class: "mutating",
		Decision: "approval", RequestID: "req_x", ApprovalID: "apr_y", DurationMS: int64(i), Result: ResultOK,
	}
}

// readLines returns every line of the files at paths, failing on any line
// that is not a JSON object.
func readLines(t *testing.T, paths ...string) []Entry {
	t.Helper()
	var out []Entry
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e Entry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("%s: line %q is not valid JSON: %v", p, sc.Text(), err)
			}
			out = append(out, e)
		}
		f.Close()
	}
	return out
}

func TestDefaultPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("GASOLINE_HOME", home)
	if p, err := DefaultPath(); err != nil || p != filepath.Join(home, "logs", "audit.jsonl") {
		t.Fatalf("DefaultPath() = %q, %v", p, err)
	}
}

// TestEntryShape: a line carries exactly the documented keys — there is
// no place for arguments or results.
func TestEntryShape(t *testing.T) {
	l, path := open(t, &Options{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	e := call(7)
	e.Reason = "approved once"
	if err := l.Write(e); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"action", "approval_id", "class", "decision", "duration_ms", "kind", "reason", "request_id", "result", "seq", "session_id", "time"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys %v, want %v", keys, want)
	}
	if m["time"] != "2026-01-02T03:04:05Z" || m["seq"] != 1.0 {
		t.Fatalf("time %v seq %v", m["time"], m["seq"])
	}
}

// TestRedactEveryField: the hook sees every string field; a panicking hook
// fails the write and writes nothing.
func TestRedactEveryField(t *testing.T) {
	const secret = "sk-live-SECRET"
	l, path := open(t, &Options{Redact: func(s string) (string, error) { return strings.ReplaceAll(s, secret, "[REDACTED:key]"), nil }})
	e := Entry{SessionID: secret, Kind: secret, Action: secret, Class: secret, Decision: secret,
		RequestID: secret, ApprovalID: secret, Target: secret, Steps: []string{"type " + secret, secret},
		Reason: "token " + secret, Warning: secret, Result: secret}
	if err := l.Write(e); err != nil {
		t.Fatal(err)
	}
	if e.Steps[0] != "type "+secret {
		t.Fatal("Write changed the caller's steps")
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), "SECRET") || !strings.Contains(string(raw), "token [REDACTED:key]") {
		t.Fatalf("written line %s", raw)
	}

	bad, badPath := open(t, &Options{Redact: func(string) (string, error) { panic("engine error") }})
	if err := bad.Write(call(1)); err == nil {
		t.Fatal("Write with a failing redaction hook succeeded")
	}
	if raw, _ := os.ReadFile(badPath); len(raw) != 0 {
		t.Fatalf("a failed redaction still wrote %q", raw)
	}

	failing, failPath := open(t, &Options{Redact: func(string) (string, error) { return "", errors.New("redact: output blocked") }})
	if err := failing.Write(call(1)); err == nil || !strings.Contains(err.Error(), "redaction failed") {
		t.Fatalf("Write with an erroring redaction hook: %v", err)
	}
	if raw, _ := os.ReadFile(failPath); len(raw) != 0 {
		t.Fatalf("a failed redaction still wrote %q", raw)
	}
}

func TestLongFieldsAreCapped(t *testing.T) {
	l, _ := open(t, nil)
	e := call(1)
	e.Reason = strings.Repeat("é", 2000)
	if err := l.Write(e); err != nil {
		t.Fatal(err)
	}
	got, err := l.Tail(1)
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if r := got[0].Reason; len(r) > MaxField || !strings.HasSuffix(r, "…[truncated]") || !utf8.ValidString(r) {
		t.Fatalf("reason of %d bytes, valid UTF-8 %v", len(r), utf8.ValidString(r))
	}
}

// TestPermissions: the log and its rotated files are 0600, its folder
// 0700, and an existing looser file is tightened.
func TestPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	dir := filepath.Join(t.TempDir(), "logs")
	path := filepath.Join(dir, FileName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, &Options{MaxBytes: 300, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 10 {
		if err := l.Write(call(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{path, path + ".1", path + ".2"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, %v; want 0600", p, fi.Mode().Perm(), err)
		}
	}
	sub := filepath.Join(t.TempDir(), "new", "logs", FileName)
	l2, err := Open(sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	l2.Close()
	if fi, err := os.Stat(filepath.Dir(sub)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("log folder mode %v, %v; want 0700", fi.Mode().Perm(), err)
	}
}

// TestRotation: files rotate by size, at most Keep old files remain, no
// file passes MaxBytes, and the retained entries are the newest, in order.
func TestRotation(t *testing.T) {
	const maxBytes, keep, n = 1024, 3, 200
	l, path := open(t, &Options{MaxBytes: maxBytes, Keep: keep})
	for i := range n {
		if err := l.Write(call(i)); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{path + ".3", path + ".2", path + ".1", path}
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > maxBytes || fi.Size() == 0 {
			t.Fatalf("%s: %v, %v; want 1 … %d bytes", p, fi, err, maxBytes)
		}
	}
	if _, err := os.Stat(path + ".4"); !os.IsNotExist(err) {
		t.Fatalf("%s.4 exists: keep is %d", path, keep)
	}
	all := readLines(t, files...)
	for i, e := range all {
		if want := all[len(all)-1].Seq - uint64(len(all)-1-i); e.Seq != want {
			t.Fatalf("retained entry %d has seq %d, want %d (contiguous, newest last)", i, e.Seq, want)
		}
	}
	if all[len(all)-1].Seq != n {
		t.Fatalf("last seq %d, want %d", all[len(all)-1].Seq, n)
	}
	tail, err := l.Tail(len(all) + 10)
	if err != nil || !slices.EqualFunc(tail, all, func(a, b Entry) bool { return a.Seq == b.Seq }) {
		t.Fatalf("Tail across files: %d entries, %v; want the %d retained", len(tail), err, len(all))
	}
}

// TestConcurrentAppends: many goroutines writing through rotations produce
// only whole, valid JSON lines, each sequence number exactly once.
func TestConcurrentAppends(t *testing.T) {
	const writers, each = 32, 200
	l, path := open(t, &Options{MaxBytes: 64 << 10, Keep: 100})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := l.Write(call(w*each + i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	files, _ := filepath.Glob(path + "*")
	all := readLines(t, files...)
	if len(all) != writers*each {
		t.Fatalf("%d lines, want %d", len(all), writers*each)
	}
	seen := make([]bool, writers*each+1)
	for _, e := range all {
		if e.Seq == 0 || e.Seq > writers*each || seen[e.Seq] {
			t.Fatalf("seq %d out of range or repeated", e.Seq)
		}
		seen[e.Seq] = true
	}
}
