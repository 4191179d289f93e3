package audit

import (
	"os"
	"strings"
	"testing"
)

// TestReadFilterAndCursor: filters select, the newest matches come back
// without a cursor, and AfterSeq pages forward through everything.
func TestReadFilterAndCursor(t *testing.T) {
	l, _ := open(t, &Options{MaxBytes: 2048, Keep: 50})
	for i := range 120 {
		e := call(i)
		if i%10 == 0 {
			e.Kind, e.Decision, e.Result = KindApproval, "denied", ""
		}
		if err := l.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Read(Filter{Kind: KindApproval}, 5)
	if err != nil || len(got) != 5 || got[4].Seq != 111 || got[0].Seq != 71 {
		t.Fatalf("newest 5 approvals = %v, %v", seqs(got), err)
	}
	got, _ = l.Read(Filter{SessionID: "s1", Kind: KindCall}, 1000)
	for _, e := range got {
		if e.SessionID != "s1" || e.Kind != KindCall {
			t.Fatalf("filter let through %+v", e)
		}
	}
	var paged []uint64
	f := Filter{Forward: true}
	for {
		page, err := l.Read(f, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, seqs(page)...)
		f.AfterSeq = page[len(page)-1].Seq
	}
	if len(paged) != 120 || paged[0] != 1 || paged[119] != 120 {
		t.Fatalf("paging saw %d entries (%v…), want 1…120", len(paged), paged[:min(5, len(paged))])
	}
}

func seqs(es []Entry) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

// TestSeqSurvivesReopen: a restarted daemon continues the sequence, even
// right after a rotation emptied the current file.
func TestSeqSurvivesReopen(t *testing.T) {
	l, path := open(t, &Options{MaxBytes: 400, Keep: 2})
	for i := range 4 {
		if err := l.Write(call(i)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if err := os.Truncate(path, 0); err != nil { // as if it had just rotated
		t.Fatal(err)
	}
	l2, err := Open(path, &Options{MaxBytes: 400, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	last := lastSeq(path + ".1")
	if err := l2.Write(call(9)); err != nil {
		t.Fatal(err)
	}
	if got, _ := l2.Tail(1); len(got) != 1 || got[0].Seq != last+1 {
		t.Fatalf("after reopen seq = %v, want %d", seqs(got), last+1)
	}
}

// TestTornLineRecovery: a line cut by a crash does not swallow the next
// entry, and readers skip it.
func TestTornLineRecovery(t *testing.T) {
	l, path := open(t, nil)
	if err := l.Write(call(1)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":2,"time":"2026-01-0`)
	f.Close()
	l2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if err := l2.Write(call(3)); err != nil {
		t.Fatal(err)
	}
	got, err := l2.Tail(10)
	if err != nil || len(got) != 2 || got[1].Seq != 2 || got[1].DurationMS != 3 {
		t.Fatalf("Tail = %+v, %v; want the first entry and the new one", got, err)
	}
}

// TestWriteErrorIsReturned: a failed write is reported, never swallowed.
func TestWriteErrorIsReturned(t *testing.T) {
	l, path := open(t, nil)
	ro, err := os.Open(path) // read-only: writes fail
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	l.f.Close()
	l.f = ro
	l.mu.Unlock()
	if err := l.Write(call(1)); err == nil || !strings.Contains(err.Error(), "audit: writing") {
		t.Fatalf("Write to a broken file = %v, want an error", err)
	}
}
