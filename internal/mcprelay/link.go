package mcprelay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/mcpline"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// link is one connection to the daemon: MCP lines over TCP to its
// loopback port, opened with a hello (internal/mcpline). A reader
// goroutine delivers messages on msgs and its end on done; close stops it
// and waits.
type link struct {
	c       net.Conn
	br      *bufio.Reader
	session string
	key     string // the resume key of a new session ("" when resumed)
	resumed bool
	version string       // the daemon's, from its answer
	sent    func([]byte) // Config.sent

	msgs chan []byte
	done chan error    // receives the read error once
	stop chan struct{} // closed by close
	wg   sync.WaitGroup
}

// dial connects to the daemon's port and says hello, asking to resume
// session hint with its resume key; timeout bounds the whole exchange.
func dial(ctx context.Context, d launcher.Daemon, hint resume, timeout time.Duration) (*link, error) {
	tok, err := d.Credential(creds.Agent)
	if err != nil {
		return nil, fmt.Errorf("reading the agent credential: %w", err)
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var dl net.Dialer
	c, err := dl.DialContext(dctx, "tcp4", "127.0.0.1:"+strconv.Itoa(d.Port))
	if err != nil {
		return nil, err
	}
	a, br, err := hello(dctx, c, mcpline.Hello{Gasoline: mcpline.HelloKind, Credential: tok, Version: version.Version, Session: hint.id, ResumeKey: hint.key})
	if err != nil {
		c.Close()
		return nil, err
	}
	l := &link{
		c: c, br: br, session: a.Session, key: a.ResumeKey, resumed: a.Resumed, version: a.Version,
		msgs: make(chan []byte), done: make(chan error, 1), stop: make(chan struct{}),
	}
	l.wg.Add(1)
	go l.read()
	return l, nil
}

// hello sends h and reads the daemon's answer, within ctx's deadline.
func hello(ctx context.Context, c net.Conn, h mcpline.Hello) (mcpline.Answer, *bufio.Reader, error) {
	var a mcpline.Answer
	if h.Session == "" || h.ResumeKey == "" {
		h.Session, h.ResumeKey = "", ""
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) }) // ctx ends the exchange early
	defer stop()
	if _, err := c.Write(mcpline.Marshal(h)); err != nil {
		return a, nil, err
	}
	br := bufio.NewReaderSize(c, 64<<10)
	ln, err := mcpline.Read(br, mcpline.MaxHello)
	if len(ln.Data) == 0 && !ln.TooLong {
		if err == nil {
			err = errors.New("a blank line")
		}
		return a, nil, fmt.Errorf("the daemon did not answer the hello: %w", err)
	}
	if ln.TooLong || json.Unmarshal(ln.Data, &a) != nil || a.Error == "" && a.Session == "" {
		return a, nil, fmt.Errorf("%s does not answer as a Gasoline daemon (%.60q)", c.RemoteAddr(), ln.Data)
	}
	if a.Error != "" {
		return a, nil, fmt.Errorf("the daemon refused the link: %s", a.Error)
	}
	if !stop() {
		return a, nil, ctx.Err()
	}
	c.SetDeadline(time.Time{})
	return a, br, nil
}

// read runs until the connection fails or closes. A line from the daemon
// longer than MaxMessage ends the link (the relay reconnects): the daemon
// never sends one.
func (l *link) read() {
	defer l.wg.Done()
	for {
		ln, err := mcpline.Read(l.br, MaxMessage)
		if ln.TooLong && err == nil {
			err = fmt.Errorf("mcprelay: a message from the daemon exceeds %d bytes", MaxMessage)
		}
		if !ln.Blank() && err == nil {
			select {
			case l.msgs <- ln.Data:
			case <-l.stop:
			}
			continue
		}
		if err != nil {
			l.done <- err
			return
		}
	}
}

// sendTimeout bounds one write, so a stuck daemon cannot hang the relay.
const sendTimeout = 30 * time.Second

// send writes one message as one line.
func (l *link) send(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if l.sent != nil {
		l.sent(msg)
	}
	buf := make([]byte, 0, len(msg)+1)
	l.c.SetWriteDeadline(time.Now().Add(sendTimeout))
	_, err := l.c.Write(append(append(buf, msg...), '\n'))
	return err
}

// close ends the connection and waits for the reader; the session stays
// in the daemon for a reconnect. Safe on nil.
func (l *link) close() {
	if l == nil {
		return
	}
	close(l.stop)
	l.c.Close() // ends the reader's Read
	l.wg.Wait()
}

// end says the client's session is over (mcpline.End), then closes. Safe
// on nil.
func (l *link) end() {
	if l == nil {
		return
	}
	l.c.SetWriteDeadline(time.Now().Add(time.Second))
	l.c.Write([]byte(mcpline.End + "\n"))
	l.close()
}

// msgsC and doneC are nil (never ready) on a nil link.
func (l *link) msgsC() <-chan []byte {
	if l == nil {
		return nil
	}
	return l.msgs
}

func (l *link) doneC() <-chan error {
	if l == nil {
		return nil
	}
	return l.done
}

// resume names the session the relay holds: its id and the key the daemon
// handed it. The id alone resumes nothing.
type resume struct{ id, key string }

// parseResume reads --session's value: "ID.KEY", as errExiting prints it.
func parseResume(v string) resume {
	id, key, ok := strings.Cut(v, ".")
	if !ok {
		return resume{}
	}
	return resume{id: id, key: key}
}

// String is the --session value that resumes it ("" when there is none).
func (r resume) String() string {
	if r.id == "" || r.key == "" {
		return ""
	}
	return r.id + "." + r.key
}
