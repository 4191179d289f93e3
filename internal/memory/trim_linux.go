package memory

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// UnmapCleanPages drops this process's mappings of the binary's read-only
// segments (code, read-only data, the function table) that hold only
// pages of the file.
//
// gasoline-host is one binary for every mode, and before main runs, the
// initialization of every package in it (the daemon's, the MCP SDK's, the
// installers') has touched code and data all over those segments; Linux
// maps clean file pages 64 KiB around each page touched, so a process that
// uses a tenth of the binary starts with most of it mapped, and its RSS
// counts it. Those pages are the page cache's, shared with every other
// gasoline-host: MADV_DONTNEED on a private file mapping whose pages were
// never written only unmaps them here, and a page the process uses comes
// back from the page cache on its next access, without I/O. The native
// host runs it once connected (what start-up and connecting touched: a
// relay under steady traffic never rests) and both it and the daemon run
// it at rest (Release: what the last burst touched). A mapping with
// written pages (a writable segment, or relocations made read-only after
// the dynamic loader wrote them) is left alone: there DONTNEED would lose
// the writes.
func UnmapCleanPages() {
	ranges := cleanMappings()
	// Nothing may run between the madvise calls that could touch the pages
	// just dropped (an allocation could start a collection, which reads
	// the function table): the ranges are collected first.
	for _, r := range ranges {
		// The range is the kernel's mapping, not Go memory: it goes to
		// madvise as numbers.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, uintptr(r[0]), uintptr(r[1]-r[0]), unix.MADV_DONTNEED)
	}
}

// cleanMappings lists this process's read-only mappings of its binary that
// hold no written (anonymous) pages, from /proc/self/smaps.
func cleanMappings() [][2]uint64 {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return nil
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][2]uint64
	var lo, hi uint64
	clean := false // the current mapping is the binary's, read-only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":"):
			// start-end perms offset dev inode [path]
			clean = len(fields) >= 6 && strings.Join(fields[5:], " ") == exe && !strings.Contains(fields[1], "w")
			if clean {
				lo, hi, clean = bounds(fields[0])
			}
		case clean && len(fields) >= 2 && fields[0] == "Anonymous:":
			if fields[1] == "0" {
				out = append(out, [2]uint64{lo, hi})
			}
			clean = false
		}
	}
	return out
}

// bounds reads a mapping's "start-end" (hexadecimal).
func bounds(r string) (lo, hi uint64, ok bool) {
	a, b, found := strings.Cut(r, "-")
	lo, err1 := strconv.ParseUint(a, 16, 64)
	hi, err2 := strconv.ParseUint(b, 16, 64)
	return lo, hi, found && err1 == nil && err2 == nil && hi > lo
}
