package mcpserver_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// TestRelayIDTranscript replays testdata/mcprelay/ids.txtar through a real
// `gasoline-host --mcp` process and a real daemon process and compares
// every answer byte for byte.
func TestRelayIDTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	raw, err := os.ReadFile("../../testdata/mcprelay/ids.txtar")
	if err != nil {
		t.Fatal(err)
	}
	a := parseTxtar(raw)
	c := &stdioConn{s: startStdio(t, startDaemon(t))}
	c.exchange(goldenInit)
	c.exchange(goldenInitialized)
	for _, send := range a.sends() {
		n := strings.TrimSuffix(send.name, ".send")
		want, _ := a.file(n + ".recv")
		c.s.send(strings.TrimSpace(string(send.data)))
		for _, w := range strings.Split(strings.TrimSpace(string(want)), "\n") {
			if got := string(c.s.recv()); got != w {
				t.Errorf("exchange %s (%s):\n got %s\nwant %s", n, bytes.TrimSpace(send.data), got, w)
			}
		}
	}
	c.close()
}

// TestRelayExitsAfterEOFWithCallInFlight: the client closes stdin while a
// call waits (here for an approval nobody gives). The relay answers it
// with relay_exiting under the client's id and exits at once, well before
// the call's own 60 s budget; it used to wait 30 s.
func TestRelayExitsAfterEOFWithCallInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("starts daemon processes")
	}
	s := startStdio(t, startDaemon(t))
	c := &stdioConn{s: s}
	c.exchange(goldenInit)
	c.exchange(goldenInitialized)
	s.send(`{"jsonrpc":"2.0","id":2.5,"method":"tools/call","params":{"name":"configure","arguments":{"what":"store","key":"k","value":"v","timeout_ms":60000}}}`)
	s.in.Close()
	got := s.recv()
	if !bytes.HasPrefix(got, []byte(`{"jsonrpc":"2.0","id":2.5,"error":`)) || gjson.GetBytes(got, "error.data.code").String() != "relay_exiting" {
		t.Fatalf("in-flight answer %s", got)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("--mcp exit: %v; stderr:\n%s", err, s.stderr)
		}
	case <-time.After(20 * time.Second): // a safety net, far below the call's 60 s
		t.Fatalf("--mcp did not exit after its input ended; stderr:\n%s", s.stderr)
	}
}
