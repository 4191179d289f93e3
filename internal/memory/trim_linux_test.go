package memory

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// exeRSS sums the resident kB of this binary's mappings, read-only and
// writable apart.
func exeRSS(t *testing.T) (ro, rw int) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mine, writable := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			mine = len(fields) >= 6 && strings.Join(fields[5:], " ") == exe
			writable = len(fields) > 1 && strings.Contains(fields[1], "w")
		case mine && len(fields) >= 2 && fields[0] == "Rss:":
			n, _ := strconv.Atoi(fields[1])
			if writable {
				rw += n
			} else {
				ro += n
			}
		}
	}
	return ro, rw
}

// written is changed before the trim; the trim must not undo it.
var written = []byte("before")

func TestUnmapCleanPagesDropsOnlyCleanPages(t *testing.T) {
	copy(written, "after!")
	ro, _ := exeRSS(t)
	UnmapCleanPages()
	after, _ := exeRSS(t)
	if after >= ro {
		t.Errorf("read-only mappings: %d kB resident before the trim, %d kB after; want fewer", ro, after)
	}
	if string(written) != "after!" {
		t.Errorf("a written variable reads %q after the trim, want %q", written, "after!")
	}
	// Code and read-only data come back on use.
	if got := strconv.Itoa(12345) + strings.ToUpper("ok"); got != "12345OK" {
		t.Errorf("after the trim: %q", got)
	}
}

// rssAnon reads this process's resident anonymous memory, in kB.
func rssAnon(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no RssAnon in /proc/self/status")
	return 0
}

var sink [][]byte

func TestReleaseMemoryHandsBackABurst(t *testing.T) {
	// A burst: 32 MiB of messages relayed and dropped.
	for range 32 {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1 // resident
		}
		sink = append(sink, b)
	}
	sink = nil
	before := rssAnon(t)
	Release()
	after := rssAnon(t)
	if before-after < 16<<10 {
		t.Errorf("resident anonymous memory %d kB after a 32 MiB burst, %d kB after releasing; want at least 16 MiB handed back", before, after)
	}
}
