//go:build unix

package main

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// BenchmarkStart times what an agent waits for when it starts gasoline-mcp
// against a daemon already running (make bench's "spawn → initialize,
// warm" row, without the Node client's own spawn and SDK), on the real
// binaries as make build makes them (static, trimmed paths), side by side:
//
//   - exec: `gasoline-mcp version` from spawn to exit: the kernel mapping
//     the binary, the Go runtime and the relay's package inits.
//   - initialize/hit: spawn until the initialize answer is on stdout,
//     answered from the cache of the daemon's answer (the relay would dial
//     the daemon at the client's first request; this harness sends none).
//   - initialize/miss: the same with the cache removed before each start:
//     state.json, the credential, the link to the daemon (its hello) and
//     the daemon's own initialize, then the cache is filled.
//
// p50-ms and p10-ms are the median and the 10th percentile of the samples
// (the machine is shared: the low percentiles say what the code costs);
// ns/op also counts the process's exit.
func BenchmarkStart(b *testing.B) {
	dir := b.TempDir()
	slim := buildBench(b, dir, ".", "gasoline-mcp")
	host := buildBench(b, dir, "../host", "gasoline-host")
	home := b.TempDir()
	port := freePort(b)
	env := append(os.Environ(), "GASOLINE_HOME="+home, "GASOLINE_PORT="+strconv.Itoa(port))
	daemon := exec.Command(host, "daemon")
	daemon.Env = env
	if err := daemon.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stopDaemon(home) })
	go daemon.Wait()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if _, err := state.Read(home); err == nil {
			if resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health"); err == nil {
				resp.Body.Close()
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("the daemon did not start")
		}
		time.Sleep(20 * time.Millisecond) // a child process's port: nothing to wait on
	}
	b.Run("exec", func(b *testing.B) {
		var ms []float64
		for b.Loop() {
			t0 := time.Now()
			if out, err := exec.Command(slim, "version").CombinedOutput(); err != nil {
				b.Fatalf("version: %v\n%s", err, out)
			}
			ms = append(ms, since(t0))
		}
		report(b, ms)
	})
	for _, c := range []struct {
		name string
		miss bool
	}{{"initialize/hit", false}, {"initialize/miss", true}} {
		b.Run(c.name, func(b *testing.B) {
			initialize(b, slim, env) // fills the cache
			var ms []float64
			for b.Loop() {
				if c.miss {
					os.Remove(state.InitCachePath(home))
				}
				ms = append(ms, initialize(b, slim, env))
			}
			report(b, ms)
		})
	}
}

// initialize runs one gasoline-mcp as a client would (initialize written at
// once) and returns the ms from spawn to its answer on stdout.
func initialize(b *testing.B, bin string, env []string) float64 {
	cmd := exec.Command(bin)
	cmd.Env = env
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
	if _, err := in.Write([]byte(initLine + "\n")); err != nil {
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

func buildBench(b *testing.B, dir, pkg, name string) string {
	out := dir + "/" + name
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, o)
	}
	return out
}

func since(t0 time.Time) float64 { return float64(time.Since(t0).Nanoseconds()) / 1e6 }

func report(b *testing.B, ms []float64) {
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "p50-ms")
	b.ReportMetric(ms[len(ms)/10], "p10-ms")
}
