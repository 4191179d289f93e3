//go:build unix

package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkStart times what an agent waits for when it starts
// `gasoline-host --mcp` against a daemon already running (what configs
// written before gasoline-mcp run; mcp/'s BenchmarkStart times
// gasoline-mcp, make bench's "spawn → initialize, warm" row, without the
// Node client's own ~2.5 ms),
// on the real binary as `make build` makes it, in two stages:
//
//   - exec: `gasoline-host version` from spawn to exit — the kernel
//     mapping the binary, the Go runtime, and every linked package's
//     init (all modes share one binary, so the relay pays for the
//     daemon's packages' init too). init-KiB is what those inits
//     allocate (GODEBUG=inittrace=1): counted, so it moves only with
//     the code.
//   - initialize: `gasoline-host --mcp` from spawn until the initialize
//     answer is on its stdout: after the first start, from the cache of
//     the daemon's answer (internal/mcprelay/initialize.go), so exec and
//     the cache read; the WebSocket to the daemon and the daemon's own
//     initialize wait for a client's first request, which this harness
//     never sends.
//
// p50-ms and p10-ms are the median and the 10th percentile of the
// samples (the machine is shared: the low percentiles say what the code
// costs); ns/op also counts the process's exit.
func BenchmarkStart(b *testing.B) {
	bin := buildHost(b)
	e := newEnv(b)
	daemon := exec.Command(bin, "daemon")
	daemon.Env = e.vars()
	if err := daemon.Start(); err != nil {
		b.Fatal(err)
	}
	go daemon.Wait()
	waitFor(b, 10*time.Second, e.healthy)
	waitFor(b, 10*time.Second, func() bool { _, err := os.Stat(filepath.Join(e.home, "state.json")); return err == nil })

	b.Run("exec", func(b *testing.B) {
		var ms []float64
		for b.Loop() {
			t0 := time.Now()
			if out, err := exec.Command(bin, "version").CombinedOutput(); err != nil {
				b.Fatalf("version: %v\n%s", err, out)
			}
			ms = append(ms, since(t0))
		}
		report(b, ms)
		b.ReportMetric(initKiB(b, bin), "init-KiB")
	})
	b.Run("initialize", func(b *testing.B) {
		var ms []float64
		for b.Loop() {
			ms = append(ms, initialize(b, bin, e))
		}
		report(b, ms)
	})
}

const startInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

// initialize runs one --mcp process as a client would (initialize written
// at once) and returns the ms from spawn to its answer on stdout.
func initialize(b *testing.B, bin string, e env) float64 {
	cmd := exec.Command(bin, "--mcp")
	cmd.Env = e.vars()
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if _, err := in.Write([]byte(startInit)); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	ms := since(t0)
	in.Close()
	if werr := cmd.Wait(); err != nil || werr != nil || !bytes.Contains(line, []byte(`"serverInfo"`)) {
		b.Fatalf("initialize: %v %v: %s\n%s", err, werr, line, stderr.Bytes())
	}
	return ms
}

// buildHost builds gasoline-host as `make build` does (static, trimmed
// paths) into a temp folder.
func buildHost(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "gasoline-host")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var initLine = regexp.MustCompile(`(?m)^init \S+ @.*?, (\d+) bytes, \d+ allocs$`)

// initKiB is what every package's init allocates at a start of bin.
func initKiB(b *testing.B, bin string) float64 {
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	trace, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("version: %v\n%s", err, trace)
	}
	total := 0
	for _, m := range initLine.FindAllStringSubmatch(string(trace), -1) {
		n, _ := strconv.Atoi(m[1])
		total += n
	}
	if total == 0 {
		b.Fatalf("no init trace:\n%.2000s", trace)
	}
	return float64(total) / 1024
}

func since(t0 time.Time) float64 { return float64(time.Since(t0).Nanoseconds()) / 1e6 }

func report(b *testing.B, ms []float64) {
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "p50-ms")
	b.ReportMetric(ms[len(ms)/10], "p10-ms")
}
