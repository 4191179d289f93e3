package portmux

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

// serve runs an HTTP server (a page and a WebSocket echo) behind a
// Listener whose matched connections answer "line:" and their first line.
func serve(t *testing.T, firstByte time.Duration) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, Config{
		Match: func(b byte) bool { return b == '{' },
		Serve: func(c net.Conn) {
			defer c.Close()
			line, _ := bufio.NewReader(c).ReadString('\n')
			io.WriteString(c, "line:"+line)
		},
		FirstByte: firstByte,
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		typ, b, err := c.Read(r.Context())
		if err == nil {
			c.Write(r.Context(), typ, b)
		}
	})
	srv := &http.Server{Handler: mux}
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Close()
		<-done
		l.Wait()
	})
	return l, "127.0.0.1:" + itoa(ln.Addr().(*net.TCPAddr).Port)
}

func itoa(n int) string { return (&net.TCPAddr{Port: n}).String()[1:] }

func get(t *testing.T, addr string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/page")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// One port: HTTP, a WebSocket upgrade and the line protocol, each where
// it belongs; a connection that has not sent its first byte delays none
// of them.
func TestSharesThePort(t *testing.T) {
	_, addr := serve(t, time.Hour)
	silent, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if got := get(t, addr); got != "page" {
		t.Fatalf("GET /page = %q", got)
	}
	ws, _, err := websocket.Dial(t.Context(), "ws://"+addr+"/ws", nil)
	if err != nil {
		t.Fatalf("WebSocket upgrade: %v", err)
	}
	ws.Write(t.Context(), websocket.MessageText, []byte("echo"))
	if _, b, err := ws.Read(t.Context()); err != nil || string(b) != "echo" {
		t.Fatalf("WebSocket echo %q %v", b, err)
	}
	ws.CloseNow()
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "{\"hello\":1}\n")
	if got, _ := bufio.NewReader(c).ReadString('\n'); got != "line:{\"hello\":1}\n" {
		t.Fatalf("line protocol answered %q, want the first byte replayed", got)
	}
}

// A connection silent past FirstByte goes to HTTP as it is (a client that
// opened it early sends its request late) and is served.
func TestSilentConnectionGoesToHTTP(t *testing.T) {
	_, addr := serve(t, time.Nanosecond) // every wait for a first byte ends before it starts
	c, err := net.Dial("tcp4", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GET /page HTTP/1.0\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "page" {
		t.Fatalf("late request answered %q", b)
	}
}

// Close ends a wait for a first byte at once: Wait returns though a
// connection is still silent.
func TestCloseEndsPendingSniffs(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{}, 1)
	l := New(ln, Config{Match: func(byte) bool { return true }, Serve: func(c net.Conn) { c.Close(); served <- struct{}{} }, FirstByte: time.Hour})
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c2, _ := net.Dial("tcp4", ln.Addr().String())
	c2.Write([]byte("{"))
	<-served // the listener has accepted, so the silent one is accepted or queued behind it
	l.Close()
	l.Wait()
	c2.Close()
}
