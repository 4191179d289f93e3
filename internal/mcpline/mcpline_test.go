package mcpline

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// No line the relay forwards can be End: Forwardable and IsEnd never
// agree.
func TestForwardableLinesAreNeverEnd(t *testing.T) {
	for _, tt := range []struct {
		line       string
		fwd, isEnd bool
	}{
		{`{"jsonrpc":"2.0"}`, true, false},
		{`  [1]`, true, false},
		{"end", false, true},
		{" end\r", false, true},
		{"ending", false, false},
		{`"end"`, false, false},
		{"", false, false},
		{"   ", false, false},
	} {
		if got := Forwardable([]byte(tt.line)); got != tt.fwd {
			t.Errorf("Forwardable(%q) = %v, want %v", tt.line, got, tt.fwd)
		}
		if got := IsEnd([]byte(tt.line)); got != tt.isEnd {
			t.Errorf("IsEnd(%q) = %v, want %v", tt.line, got, tt.isEnd)
		}
	}
}

func TestRead(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("a\r\n\n"+strings.Repeat("x", 100)+"\nbb\nlast"), 16)
	var got []string
	for {
		l, err := ReadNonBlank(br, 10)
		switch {
		case l.TooLong:
			got = append(got, "<too long>")
		case !l.Blank():
			got = append(got, string(l.Data))
		}
		if err != nil {
			break
		}
	}
	if want := "a|<too long>|bb|last"; strings.Join(got, "|") != want {
		t.Errorf("lines %q, want %q", strings.Join(got, "|"), want)
	}
}

// FuzzRead: whatever the input, Read returns no line over max, a line
// never holds a newline, and every byte of input is consumed in the end.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"a\":1}\nend\n"), 8)
	f.Add([]byte(strings.Repeat("y", 40)+"\n\n\r\nz"), 4)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 1 || max > 1<<12 {
			return
		}
		br := bufio.NewReaderSize(bytes.NewReader(in), 16)
		for range len(in) + 2 {
			l, err := Read(br, max)
			if len(l.Data) > max || bytes.ContainsRune(l.Data, '\n') || (l.TooLong && len(l.Data) > 0) {
				t.Fatalf("Read(max %d) = %+v", max, l)
			}
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		t.Fatal("Read did not reach the end of its input")
	})
}
