//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// The test binary doubles as gasoline-mcp with GASOLINE_MCP_TEST_EXEC=1:
// it runs the real run() on its arguments, from a folder with no
// gasoline-host in it.
func TestMain(m *testing.M) {
	if os.Getenv("GASOLINE_MCP_TEST_EXEC") == "1" {
		if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "gasoline-mcp:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// session runs bin as an MCP client would: it writes lines and returns the
// answer to each request, in order, then closes stdin and waits.
func session(t *testing.T, bin string, env []string, lines ...string) []map[string]any {
	t.Helper()
	got, _ := sessionErr(t, bin, env, lines...)
	return got
}

// sessionErr is session, with what bin wrote to stderr.
func sessionErr(t *testing.T, bin string, env []string, lines ...string) ([]map[string]any, string) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	var got []map[string]any
	for _, l := range lines {
		if _, err := in.Write([]byte(l + "\n")); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(l, `"id"`) {
			continue
		}
		if !sc.Scan() {
			t.Fatalf("no answer to %s; stderr:\n%s", l, stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", sc.Text())
		}
		got = append(got, m)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return got, stderr.String()
}

// With no daemon running and no gasoline-host beside it, gasoline-mcp
// answers with an error that names the missing file (never a hang).
func TestMissingHostIsNamed(t *testing.T) {
	env := append(os.Environ(), "GASOLINE_MCP_TEST_EXEC=1", "GASOLINE_HOME="+t.TempDir(), "GASOLINE_PORT="+strconv.Itoa(freePort(t)))
	got := session(t, os.Args[0], env, initLine)
	msg, _ := got[0]["error"].(map[string]any)["message"].(string)
	want := filepath.Join(filepath.Dir(os.Args[0]), "gasoline-host") + " is missing"
	if !strings.Contains(msg, want) {
		t.Fatalf("answer %v; want an error saying %q", got[0], want)
	}
}

// build builds a main package of this module into dir as make build does.
func build(t *testing.T, dir, pkg, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// The real binaries, side by side as make build and the installer put
// them: gasoline-mcp with no daemon running starts gasoline-host daemon
// from beside itself, its first start fills the initialize cache from the
// daemon's answer, and the next start is answered from it, with tools/list
// served by the daemon after.
func TestSlimStartsHostBesideAndCaches(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both binaries")
	}
	dir := t.TempDir()
	mcpBin, host := build(t, dir, ".", "gasoline-mcp"), build(t, dir, "../host", "gasoline-host")
	home := t.TempDir()
	env := append(os.Environ(), "GASOLINE_HOME="+home, "GASOLINE_PORT="+strconv.Itoa(freePort(t)))
	t.Cleanup(func() { stopDaemon(home) })
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	inited := `{"jsonrpc":"2.0","method":"notifications/initialized"}`

	first := session(t, mcpBin, env, initLine, inited, list)
	if first[0]["result"] == nil || first[1]["result"] == nil {
		t.Fatalf("first start: %v", first)
	}
	st, err := state.Read(home)
	if err != nil {
		t.Fatalf("no daemon state after the first start: %v", err)
	}
	if exe, _ := os.Readlink("/proc/" + strconv.Itoa(st.PID) + "/exe"); exe != "" && exe != host {
		t.Errorf("the daemon runs %s, want %s (beside gasoline-mcp)", exe, host)
	}
	raw, err := os.ReadFile(state.InitCachePath(home))
	if err != nil {
		t.Fatalf("the first start left no initialize cache: %v", err)
	}
	var file struct{ Results map[string]any }
	if err := json.Unmarshal(raw, &file); err != nil || !reflect.DeepEqual(file.Results["2025-06-18"], first[0]["result"]) {
		t.Fatalf("the cache %s does not hold the daemon's answer %v (%v)", raw, first[0]["result"], err)
	}

	// The next start is answered from the cache: one edited to tell, which
	// the daemon's own answer then puts right.
	edited := strings.Replace(string(raw), `"instructions":"`, `"instructions":"FROM THE CACHE. `, 1)
	if err := os.WriteFile(state.InitCachePath(home), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	second, stderr := sessionErr(t, mcpBin, env, initLine, inited, list)
	if ins, _ := second[0]["result"].(map[string]any)["instructions"].(string); !strings.HasPrefix(ins, "FROM THE CACHE. ") {
		t.Errorf("second start answered %v, not from the cache", second[0])
	}
	tools, _ := second[1]["result"].(map[string]any)["tools"].([]any)
	if len(tools) == 0 {
		t.Fatalf("tools/list after a cached initialize: %v", second[1])
	}
	if now, _ := os.ReadFile(state.InitCachePath(home)); string(now) != string(raw) {
		t.Errorf("the cache after the daemon's answer differed:\n%s\nwant\n%s", now, raw)
	}
	if !strings.Contains(stderr, "differs from the cached one") {
		t.Errorf("stderr did not say the cached answer differed: %q", stderr)
	}
	// The cache as the daemon answers, byte for byte: nothing to say.
	third, stderr := sessionErr(t, mcpBin, env, initLine, inited, list)
	if !reflect.DeepEqual(third[0]["result"], first[0]["result"]) || stderr != "" {
		t.Errorf("third start: %v, stderr %q; want the daemon's answer, silently", third[0], stderr)
	}
}

// stopDaemon ends the daemon a test's gasoline-mcp started (SIGTERM) and
// waits, bounded, for it to go.
func stopDaemon(home string) {
	st, err := state.Read(home)
	if err != nil || st.PID <= 0 {
		return
	}
	syscall.Kill(st.PID, syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if syscall.Kill(st.PID, 0) != nil {
			return
		}
		time.Sleep(10 * time.Millisecond) // another process's exit: polled, bounded
	}
	syscall.Kill(st.PID, syscall.SIGKILL)
}
