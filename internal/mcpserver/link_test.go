package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpline"
)

// The link's hello is checked as the HTTP guard checks /mcp's bearer
// token, agent role only: anything else is answered with a refusal and
// the connection closes, with no session made.
func TestLinkHelloRefusals(t *testing.T) {
	f := newFixture(t, &Options{linkMax: 1 << 10})
	hello := func(cred string) string {
		return string(mcpline.Marshal(mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: cred}))
	}
	for _, tt := range []struct{ name, first, want string }{
		{"no credential", hello(""), "not a current Gasoline credential"},
		{"wrong credential", hello("0123"), "not a current Gasoline credential"},
		{"another role's credential", hello(linkTok), "the link credential is not valid here"},
		{"a remote agent's credential", hello("remote:devbox"), "the remote credential is not valid here"},
		{"a JSON-RPC message first", `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", "not a hello"},
		{"an oversize hello", `{"gasoline":"` + mcpline.HelloKind + `","credential":"` + strings.Repeat("x", mcpline.MaxHello) + "\"}\n", "not a hello"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.s.SessionManager().List())
			c, err := net.Dial("tcp4", f.linkLn.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Write([]byte(tt.first))
			if a := answerAndClose(t, c); !strings.Contains(a, tt.want) || !strings.Contains(a, `"error"`) {
				t.Fatalf("answer %s, want an error saying %q", a, tt.want)
			}
			if n := len(f.s.SessionManager().List()); n != before {
				t.Errorf("%d sessions after a refused hello, want %d", n, before)
			}
		})
	}
}

// answerAndClose reads the one line a refused link is answered with, and
// checks the daemon closes the connection after it.
func answerAndClose(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	if rest, err := br.ReadString('\n'); err == nil || rest != "" {
		t.Fatalf("after the refusal the link stayed open (%q, %v)", rest, err)
	}
	return line
}

// A connection that sends no hello is closed once the wait for one ends.
func TestLinkWithoutHelloCloses(t *testing.T) {
	f := newFixture(t, &Options{linkHello: 20 * time.Millisecond})
	c, err := net.Dial("tcp4", f.linkLn.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if a := answerAndClose(t, c); !strings.Contains(a, "no hello") {
		t.Fatalf("answer %s, want a refusal saying no hello came", a)
	}
}

// remoteConn is one end of a pipe that says it comes from another machine.
type remoteConn struct{ net.Conn }

func (remoteConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 40000}
}

// A link from a peer that is not loopback is refused before its hello is
// read, the agent credential notwithstanding.
func TestLinkRefusesANonLoopbackPeer(t *testing.T) {
	f := newFixture(t, nil)
	server, client := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.s.ServeLink(context.Background(), remoteConn{server}, testCreds{})
	}()
	go client.Write(mcpline.Marshal(mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: agentTok}))
	if a := answerAndClose(t, client); !strings.Contains(a, "loopback peers only") {
		t.Fatalf("answer %s, want a refusal of a non-loopback peer", a)
	}
	client.Close()
	<-done
}

// A line over the bound is answered with an error and skipped to its
// newline; the session carries on.
func TestLinkOversizeLineKeepsTheSession(t *testing.T) {
	f := newFixture(t, &Options{linkMax: 1 << 10})
	w := f.link(t, "")
	w.initialize()
	w.send(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`)
	if got := w.recv(); dig(got, "error", "code") != -32600.0 || !strings.Contains(dig(got, "error", "message").(string), "longer than") {
		t.Fatalf("answer to an oversize line %v, want -32600 saying it was too long", got)
	}
	if got := w.roundTrip(`{"jsonrpc":"2.0","id":8,"method":"ping"}`); got["id"] != 8.0 || got["result"] == nil {
		t.Fatalf("ping after an oversize line: %v", got)
	}
}

// The daemon's answer to a hello names its version (the relay uses a
// daemon it dialled on state.json's word only when it is of its own
// version) and, for a new session, the resume key.
func TestLinkAnswerNamesVersionAndKey(t *testing.T) {
	f := newFixture(t, &Options{Version: "9.9.9"})
	_, _, a := f.dialLink(t, mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: agentTok})
	if a.Error != "" || a.Version != "9.9.9" || a.Session == "" || a.ResumeKey == "" || a.Resumed {
		t.Fatalf("answer %+v, want a new session with a key, version 9.9.9", a)
	}
}

// loopbackConn is one end of a pipe that says it comes from loopback.
type loopbackConn struct{ net.Conn }

func (loopbackConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
}

// FuzzLinkHello: whatever a connection sends first, ServeLink answers it
// with one JSON line — a refusal unless it is a hello with the agent
// credential — and returns once the peer has gone.
func FuzzLinkHello(f *testing.F) {
	f.Add([]byte(`{"gasoline":"mcp-relay-hello","credential":"x"}` + "\n"))
	f.Add([]byte(`{"gasoline":"mcp-relay-hello","credential":"` + agentTok + `","session":"a","resume_key":"b"}` + "\nend\n"))
	f.Add([]byte("{\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	fx := newFixture(f, nil)
	f.Fuzz(func(t *testing.T, in []byte) {
		server, client := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			fx.s.ServeLink(context.Background(), loopbackConn{server}, testCreds{})
		}()
		go func() {
			client.Write(in)
			client.Write([]byte("\n"))
		}()
		client.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := bufio.NewReader(client).ReadBytes('\n')
		var a mcpline.Answer
		if err != nil || json.Unmarshal(line, &a) != nil || (a.Error == "") == (a.Session == "") {
			t.Fatalf("answer %q (%v) to %q", line, err, in)
		}
		client.Close()
		<-done
	})
}
