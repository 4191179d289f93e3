package memory

import (
	"runtime"
	"testing"
)

var keep [][]byte

func TestReadRuntimeSeesTheHeap(t *testing.T) {
	runtime.GC()
	before := ReadRuntime()
	for range 64 {
		keep = append(keep, make([]byte, 64<<10))
	}
	runtime.GC()
	after := ReadRuntime()
	if after.HeapLive < before.HeapLive+3<<20 {
		t.Errorf("heap live %d after keeping 4 MiB, %d before", after.HeapLive, before.HeapLive)
	}
	if after.Goroutines == 0 || after.Mapped == 0 || after.GCs <= before.GCs {
		t.Errorf("runtime figures missing: %+v", after)
	}
	keep = nil
}

func TestStoreOverAndBrief(t *testing.T) {
	for _, c := range []struct {
		s    Store
		over bool
	}{
		{Store{Len: 3, Cap: 3}, false},
		{Store{Len: 4, Cap: 3}, true},
		{Store{Len: 1, Cap: 3, Bytes: 10, MaxBytes: 10}, false},
		{Store{Len: 1, Cap: 3, Bytes: 11, MaxBytes: 10}, true},
		{Store{Len: 1, Cap: 3, Bytes: 11}, false}, // bytes not capped
	} {
		if got := c.s.Over(); got != c.over {
			t.Errorf("%+v.Over() = %v, want %v", c.s, got, c.over)
		}
	}
	b := Report{Stores: []Store{{Name: "a", Len: 2, Cap: 5}, {Name: "empty", Cap: 5}}}.Brief()
	if len(b.Stores) != 1 || b.Stores["a"] != 2 {
		t.Errorf("Brief stores = %v, want only the stores holding anything", b.Stores)
	}
}
