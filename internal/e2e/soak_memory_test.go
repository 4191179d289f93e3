//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/memory"
)

// soakSample is one look at the daemon: its resident set (the kernel's
// count) and its own memory report (live heap, runtime figures, stores).
type soakSample struct {
	at  time.Duration
	rss int64
	rep memory.Report
	ok  bool // the report was read
}

// daemonDebug reads the daemon's approver-only debug endpoints, as a user
// would with curl and the approver credential.
type daemonDebug struct {
	base, token string
	c           http.Client
}

func newDaemonDebug(s *spawned) (*daemonDebug, error) {
	tok, err := creds.Load(s.home, creds.Approver)
	if err != nil {
		return nil, err
	}
	return &daemonDebug{base: "http://127.0.0.1:" + s.port, token: tok, c: http.Client{Timeout: 30 * time.Second}}, nil
}

func (d *daemonDebug) get(path string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, d.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := d.c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %s", path, resp.Status, b)
	}
	return b, err
}

func (d *daemonDebug) memory() (memory.Report, error) {
	var r memory.Report
	b, err := d.get("/debug/memory")
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	return r, err
}

// heapProfile writes a heap profile of what is live now (collected first)
// to file.
func (d *daemonDebug) heapProfile(file string) error {
	b, err := d.get("/debug/pprof/heap?gc=1")
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// soakOut is where the soak writes its heap profiles: $GASOLINE_SOAK_OUT,
// or out/ at the repository's root.
func soakOut() string {
	if d := os.Getenv("GASOLINE_SOAK_OUT"); d != "" {
		return d
	}
	return filepath.Join(RepoRoot(), "out")
}

// sample records the daemon's resident memory and memory report every
// interval until ctx ends, and once more then. At the verdict's reference
// point (10 minutes, or a third of a shorter soak) and at the end it saves
// a heap profile (soak-heap-early/late.pb.gz), for `go tool pprof
// -diff_base`.
func (st *soakStats) sample(ctx context.Context, pid int, dbg *daemonDebug, every, dur time.Duration) {
	start := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	early := time.After(min(10*time.Minute, dur/3)) // the verdict's reference point
	take := func() {
		cur, _ := rss(pid)
		rep, err := dbg.memory()
		st.mu.Lock()
		st.samples = append(st.samples, soakSample{at: time.Since(start), rss: cur, rep: rep, ok: err == nil})
		st.maxRSS = max(st.maxRSS, cur)
		st.mu.Unlock()
	}
	take()
	for {
		select {
		case <-ctx.Done():
			take()
			st.profile(dbg, "late")
			return
		case <-early:
			st.profile(dbg, "early")
		case <-t.C:
			take()
		}
	}
}

func (st *soakStats) profile(dbg *daemonDebug, name string) {
	dir := soakOut()
	file := filepath.Join(dir, "soak-heap-"+name+".pb.gz")
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = dbg.heapProfile(file)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if err != nil {
		st.profiles = append(st.profiles, name+": "+err.Error())
		return
	}
	st.profiles = append(st.profiles, file)
}

// restWait is how long after the last call the soak reads the daemon's
// resident set at rest: past the daemon's 5 s without activity, after
// which it hands memory back (bridge/release.go). Nothing may reach the
// daemon meanwhile (a request is activity): the set is read from /proc.
const restWait = 8 * time.Second

// atRest records the daemon's resident set once it has rested after the
// agents stopped (a benchmark's reading, not a wait for correctness), and
// then its report: the collections since the last sample show whether it
// released (a forced collection).
func (st *soakStats) atRest(pid int, dbg *daemonDebug) {
	time.Sleep(restWait)
	cur, _ := rss(pid)
	rep, err := dbg.memory()
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rest = soakSample{rss: cur, rep: rep, ok: err == nil}
}

const mib = 1 << 20

func mibs(n uint64) string { return strconv.FormatFloat(float64(n)/mib, 'f', 1, 64) }

// memoryReport prints every sample (resident set, live heap, what the
// runtime maps and released, goroutines, then the stores holding
// anything), the heap profiles and the verdict.
func (st *soakStats) memoryReport(out *strings.Builder) {
	fmt.Fprintf(out, "daemon memory (RSS: resident set; live: heap live after the last collection; mapped: the Go runtime's, less released):\n")
	for _, s := range st.samples {
		fmt.Fprintf(out, "  t+%-6s RSS %6s MiB", s.at.Round(time.Second), mibs(uint64(s.rss)))
		if !s.ok {
			fmt.Fprintf(out, "  (no memory report)\n")
			continue
		}
		r := s.rep.Runtime
		fmt.Fprintf(out, "  live %6s  mapped %6s  released %6s MiB  goroutines %d\n", mibs(r.HeapLive), mibs(r.Mapped), mibs(r.HeapReleased), r.Goroutines)
		var held []string
		for _, x := range s.rep.Stores {
			if x.Len == 0 && x.Bytes == 0 {
				continue
			}
			h := x.Name + " " + strconv.Itoa(x.Len)
			if x.Bytes > 0 {
				h += fmt.Sprintf(" (%d KiB)", x.Bytes>>10)
			}
			held = append(held, h)
		}
		fmt.Fprintf(out, "      %s\n", strings.Join(held, ", "))
	}
	if len(st.profiles) > 0 {
		fmt.Fprintf(out, "heap profiles: %s\n", strings.Join(st.profiles, " "))
		if len(st.profiles) == 2 {
			fmt.Fprintf(out, "  what grew: go tool pprof -sample_index=inuse_space -top -diff_base %s %s\n", st.profiles[0], st.profiles[1])
		}
	}
	if r := st.rest; r.ok && len(st.samples) > 0 {
		last := st.samples[len(st.samples)-1].rep.Runtime
		fmt.Fprintf(out, "at rest (%s after the last call): RSS %s MiB, live %s, released %s MiB, %d collections since the last sample\n",
			restWait, mibs(uint64(r.rss)), mibs(r.rep.Runtime.HeapLive), mibs(r.rep.Runtime.HeapReleased), r.rep.Runtime.GCs-last.GCs)
	}
	fmt.Fprintln(out, soakVerdict(st.samples))
}

// soakVerdict compares the first and last thirds of the samples: the live
// heap at the end against its value at 10 minutes (or at the end of the
// first third, in a soak shorter than 30 minutes), each the lowest live
// heap of the samples in the minute up to that point (what is retained:
// the heap a collection finds live also holds the work in flight, which
// comes and goes with the calls); the resident set of each third, its low
// taken as its 10th percentile; and every store's size. FLAT when the
// live heap is within 10%, the resident low of the last third is not
// above the second's by more than 1%, and no store stays over its cap.
//
// Why a percentile and an allowance: under load the daemon releases once
// a minute (bridge/release.go), and its resident set dips for the few
// seconds after each release before the heap grows back to its goal; a
// single lowest sample is then set by whether a 10-second sample happened
// to fall in such a dip, not by what the daemon keeps. And two lows of a
// series that does not move still differ by a few tenths of a MiB either
// way. The single lowest samples are printed too. The stores larger in the last third than in
// the first are listed too: a buffer still filling towards its cap grows
// as much as a leak does, and the caps tell them apart.
func soakVerdict(samples []soakSample) string {
	var ok []soakSample
	for _, s := range samples {
		if s.ok {
			ok = append(ok, s)
		}
	}
	if len(ok) < 6 {
		return "verdict: too few samples to compare thirds (run longer, or sample more often with SOAK_SAMPLE)"
	}
	end := ok[len(ok)-1].at
	ref := min(10*time.Minute, end/3)
	i := 0
	for i < len(ok)-1 && ok[i+1].at <= ref {
		i++
	}
	heapRef, heapEnd := floorLive(ok[:i+1]), floorLive(ok)
	change := (float64(heapEnd) - float64(heapRef)) / float64(heapRef) * 100
	var thirds [3][]int64
	for _, s := range ok {
		k := min(int(3*s.at/(end+1)), 2)
		thirds[k] = append(thirds[k], s.rss)
	}
	var lows, mins [3]int64
	for k, t := range thirds {
		slices.Sort(t)
		lows[k], mins[k] = t[len(t)/10], t[0]
	}
	rises := float64(lows[2]) > 1.01*float64(lows[1])
	over, grew := storeChanges(ok, end)
	flat := change <= 10 && change >= -10 && !rises && len(over) == 0
	word := "GROWING"
	if flat {
		word = "FLAT"
	}
	return fmt.Sprintf("verdict: %s: live heap %s MiB at t+%s, %s MiB at the end (%+.1f%%, bound ±10%%; the bytes the stores count went from %s to %s MiB); RSS lows per third (10th percentile) %s / %s / %s MiB (last third %s the second; single lowest samples %s / %s / %s); stores over their cap: %s; stores larger in the last third than in the first: %s",
		word, mibs(heapRef), ok[i].at.Round(time.Second), mibs(heapEnd), change, mibs(storeBytes(ok[i])), mibs(storeBytes(ok[len(ok)-1])),
		mibs(uint64(lows[0])), mibs(uint64(lows[1])), mibs(uint64(lows[2])), map[bool]string{true: "more than 1% above", false: "not more than 1% above"}[rises],
		mibs(uint64(mins[0])), mibs(uint64(mins[1])), mibs(uint64(mins[2])), listOrNone(over), listOrNone(grew))
}

// storeBytes sums the bytes the stores of a sample count (capture's
// entries and the kinds inside them are counted once, as capture.entries).
func storeBytes(s soakSample) uint64 {
	var n int64
	for _, x := range s.rep.Stores {
		if !strings.HasPrefix(x.Name, "capture.") || x.Name == "capture.entries" {
			n += x.Bytes
		}
	}
	return uint64(n)
}

// floorLive is the lowest live heap of the samples in the minute up to
// the last of s (a sixth of the samples' time, when shorter).
func floorLive(s []soakSample) uint64 {
	last := s[len(s)-1]
	window := min(time.Minute, last.at/6)
	low := last.rep.Runtime.HeapLive
	for _, x := range s {
		if last.at-x.at <= window {
			low = min(low, x.rep.Runtime.HeapLive)
		}
	}
	return low
}

// storeChanges lists the stores over their cap in three samples in a row
// (what a store holds for a tab or a session can outlast it by a moment:
// its release follows the browser's event), and those whose largest size
// in the last third is above their largest in the first while below their
// cap.
func storeChanges(ok []soakSample, end time.Duration) (over, grew []string) {
	first, last := map[string]int{}, map[string]memory.Store{}
	run, seen := map[string]int{}, map[string]bool{}
	for _, s := range ok {
		third := int(3 * s.at / (end + 1))
		for _, x := range s.rep.Stores {
			if !x.Over() {
				run[x.Name] = 0
			} else if run[x.Name]++; run[x.Name] == 3 && !seen[x.Name] {
				seen[x.Name] = true
				over = append(over, fmt.Sprintf("%s %d/%d", x.Name, x.Len, x.Cap))
			}
			switch third {
			case 0:
				first[x.Name] = max(first[x.Name], x.Len)
			case 2:
				if x.Len >= last[x.Name].Len {
					last[x.Name] = x
				}
			}
		}
	}
	for name, x := range last {
		if f, ok := first[name]; ok && x.Len > f && x.Len < x.Cap {
			grew = append(grew, fmt.Sprintf("%s %d→%d", name, f, x.Len))
		}
	}
	slices.Sort(grew)
	return over, grew
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
