package mcprelay

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// Handshake headers of /ws/mcp (mcpserver.HeaderSession, HeaderResumed,
// HeaderResumeKey); headerVersion goes both ways: the relay's version, and
// the daemon's in its answer (bridge).
const (
	headerSession   = "X-Gasoline-Session"
	headerResumed   = "X-Gasoline-Resumed"
	headerResumeKey = "X-Gasoline-Resume-Key"
	headerVersion   = "X-Gasoline-Version"
)

// closeSessionEnd tells the daemon the client ended the session
// (mcpserver.CloseSessionEnd): its tabs close. Any other close keeps the
// session for the client to resume.
const closeSessionEnd websocket.StatusCode = 4000

// link is one WebSocket connection to the daemon. A reader goroutine
// delivers messages on msgs and its end on done; close stops it and waits.
type link struct {
	c       *websocket.Conn
	session string
	key     string // the resume key of a new session ("" when resumed)
	resumed bool
	version string // the daemon's, from its answer ("" from a daemon that does not say)

	msgs chan []byte
	done chan error    // receives the read error once
	stop chan struct{} // closed by close
	wg   sync.WaitGroup
}

// dial connects to the daemon's /ws/mcp, asking to resume session hint
// with its resume key.
func dial(ctx context.Context, d launcher.Daemon, hint resume, timeout time.Duration) (*link, error) {
	tok, err := d.Credential(creds.Agent)
	if err != nil {
		return nil, fmt.Errorf("reading the agent credential: %w", err)
	}
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+tok)
	hdr.Set(headerVersion, version.Version)
	if hint.id != "" && hint.key != "" {
		hdr.Set(headerSession, hint.id)
		hdr.Set(headerResumeKey, hint.key)
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, resp, err := websocket.Dial(dctx, d.URL("ws", "/ws/mcp"), &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(MaxMessage)
	l := &link{
		c: c, session: resp.Header.Get(headerSession), key: resp.Header.Get(headerResumeKey), resumed: resp.Header.Get(headerResumed) == "true",
		version: resp.Header.Get(headerVersion),
		msgs:    make(chan []byte), done: make(chan error, 1), stop: make(chan struct{}),
	}
	l.wg.Add(1)
	go l.read()
	return l, nil
}

// read runs until the connection fails or closes; after stop it keeps
// reading (and dropping) so the close handshake completes.
func (l *link) read() {
	defer l.wg.Done()
	for {
		_, data, err := l.c.Read(context.Background())
		if err != nil {
			l.done <- err
			return
		}
		select {
		case l.msgs <- data:
		case <-l.stop:
		}
	}
}

// send writes one message, bounded so a stuck daemon cannot hang the relay.
func (l *link) send(ctx context.Context, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return l.c.Write(ctx, websocket.MessageText, msg)
}

// close ends the connection and waits for the reader; the session stays
// in the daemon for a reconnect. Safe on nil.
func (l *link) close() { l.closeWith(websocket.StatusNormalClosure, "reconnecting") }

// end closes the connection saying the client's session is over. Safe on
// nil.
func (l *link) end() { l.closeWith(closeSessionEnd, "client done") }

func (l *link) closeWith(code websocket.StatusCode, reason string) {
	if l == nil {
		return
	}
	close(l.stop)
	l.c.Close(code, reason) // bounded by the library; ends Read
	l.wg.Wait()
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
