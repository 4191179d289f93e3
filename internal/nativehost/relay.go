package nativehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/memory"
	"github.com/gasoline-mcp/gasoline/internal/nativemsg"
	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// Config wires a relay. All fields are required except Log.
type Config struct {
	In     io.Reader // Chrome → host frames (stdin)
	Out    io.Writer // host → Chrome frames (stdout); the relay is its only writer
	Log    *slog.Logger
	Ensure func(ctx context.Context) (launcher.Daemon, error)
	// Start is an explicit start, for the extension's daemon.start (the
	// panel's Start button): launcher.Ensure with Start. Nil answers
	// daemon.start with an error.
	Start func(ctx context.Context) (launcher.Daemon, error)
	// Backoff bounds the wait between reconnect attempts; defaults 250ms..5s.
	MinBackoff, MaxBackoff time.Duration
	// Redaction is the live redaction policy for the source stage
	// (source.go); nil relays page data unredacted (relay tests only).
	Redaction *redact.Store
	// CountsEvery is the least time between two redaction.counts events
	// to the daemon (counts.go); default 250ms.
	CountsEvery time.Duration
	// Release runs once after each burst of traffic, when RestAfter
	// (default 2s) passes without a message either way (memory.Rest); nil
	// releases nothing.
	Release   func()
	RestAfter time.Duration
}

// maxWS bounds one message from the daemon.
const maxWS = protocol.MaxMessage

// restAfter is how long the relay must see no message, either way, before
// it hands back what the last burst left behind (Config.Release).
const restAfter = 2 * time.Second

// helloReplayID is the id of the host's own replayed hello. The host numbers
// its own requests below zero so they never collide with the extension's.
const helloReplayID = -1

// relay is one native-host process's state.
type relay struct {
	cfg Config
	log *slog.Logger
	out *nativemsg.Writer

	// in carries frames read from Chrome; closed at end of input.
	in chan []byte

	mu      sync.Mutex
	pending map[int64]string // extension request id → method, awaiting the daemon
	hello   []byte           // the extension's last hello request, replayed on reconnect
	conns   int              // daemon connections made so far
	readErr error            // why input ended (nil: clean EOF)

	stopped  *protocol.Error // Gasoline was stopped on purpose: the answer while it is
	startReq int64           // the extension's daemon.start awaiting the new connection

	src *source // the source stage of the redaction gateway

	rest *memory.Rest // release after each burst
}

// Run relays until Chrome closes stdin (returns nil) or stdout breaks.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = 250 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 5 * time.Second
	}
	if cfg.CountsEvery <= 0 {
		cfg.CountsEvery = countsEvery
	}
	if cfg.RestAfter <= 0 {
		cfg.RestAfter = restAfter
	}
	if cfg.Release == nil {
		cfg.Release = func() {}
	}
	r := &relay{
		cfg:     cfg,
		log:     cfg.Log,
		out:     nativemsg.NewWriter(cfg.Out),
		in:      make(chan []byte, 64),
		pending: map[int64]string{},
		src:     newSource(cfg.Redaction, cfg.Log),
		rest:    memory.NewRest(cfg.RestAfter, 0, cfg.Release),
	}
	defer r.rest.Stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.readInput(ctx)
	}()
	err := r.loop(ctx)
	cancel()
	wg.Wait()
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readErr
}

// readInput owns stdin: it reads frames and hands them to the loop, and
// closes r.in at end of input. Malformed or empty frames are logged and
// skipped (the stream stays in sync); an oversize declared length cannot be
// skipped safely, so it ends the relay with an error.
func (r *relay) readInput(ctx context.Context) {
	defer close(r.in)
	rd := nativemsg.NewReader(r.cfg.In, 0)
	for {
		msg, err := rd.ReadMessage()
		r.rest.Touch()
		var mal *nativemsg.MalformedError
		switch {
		case err == nil:
		case errors.Is(err, nativemsg.ErrEmptyFrame), errors.As(err, &mal):
			r.log.Warn("dropping unusable frame from the extension", "err", err)
			continue
		case errors.Is(err, io.EOF):
			r.log.Info("extension closed the port; exiting")
			return
		default:
			r.tooLargeFromChrome(err) // said before the host closes (oversize.go)
			r.mu.Lock()
			r.readErr = fmt.Errorf("reading from Chrome: %w", err)
			r.mu.Unlock()
			return
		}
		select {
		case r.in <- msg:
		case <-ctx.Done():
			return
		}
	}
}

// loop keeps a daemon connection up for as long as input lasts. After a
// deliberate stop (launcher.ErrStopped) it starts none, tells the
// extension, and waits for its daemon.start or for a daemon someone else
// started.
func (r *relay) loop(ctx context.Context) error {
	backoff := r.cfg.MinBackoff
	announced := false // link.daemon_unavailable or _stopped sent for this outage
	for {
		d, err := r.ensure(ctx)
		var c *websocket.Conn
		if err == nil {
			c, err = r.dial(ctx, d)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.log.Warn("daemon unreachable", "err", err, "retry_in", backoff)
			announced = r.announce(err, announced)
			done, start, err := r.offline(ctx, backoff)
			if done {
				return err
			}
			if start != 0 {
				r.startReq = start
				continue
			}
			backoff = min(backoff*2, r.cfg.MaxBackoff)
			continue
		}
		backoff, announced = r.cfg.MinBackoff, false
		r.stopped = nil
		done, err := r.session(ctx, c)
		c.CloseNow()
		if done {
			return err
		}
	}
}

// ensure finds (or starts) a daemon; an explicit start when the extension
// asked for one.
func (r *relay) ensure(ctx context.Context) (launcher.Daemon, error) {
	if r.startReq == 0 {
		return r.cfg.Ensure(ctx)
	}
	id := r.startReq
	if r.cfg.Start == nil {
		r.startReq = 0
		r.replyError(id, protocol.Errorf(protocol.CodeInternal, false, "this host cannot start the daemon"))
		return launcher.Daemon{}, errors.New("no explicit start")
	}
	d, err := r.cfg.Start(ctx)
	if err != nil {
		r.startReq = 0
		r.replyError(id, protocol.Errorf(protocol.CodeDaemonUnavailable, true, "starting the Gasoline daemon failed: %v; gasoline-host doctor says why", err))
	}
	return d, err
}

// announce tells the extension once per outage why the daemon is away.
func (r *relay) announce(err error, announced bool) bool {
	var se *launcher.StoppedError
	if errors.As(err, &se) {
		first := r.stopped == nil
		r.stopped = protocol.Errorf(protocol.CodeDaemonStopped, false, "%s", se.Error())
		if first {
			r.event(protocol.EventLinkDaemonStopped, map[string]any{"message": se.Error(), "stopped_at": se.Stop.At, "by": se.Stop.By})
		}
		return true
	}
	r.stopped = nil
	if !announced {
		r.event(protocol.EventLinkDaemonUnavailable, map[string]string{"message": err.Error()})
	}
	return true
}

func (r *relay) dial(ctx context.Context, d launcher.Daemon) (*websocket.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tok, err := d.Credential(creds.Link)
	if err != nil {
		return nil, fmt.Errorf("reading the extension-link credential: %w", err)
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+tok)
	h.Set("X-Gasoline-Version", version.Version)
	c, _, err := websocket.Dial(dctx, d.URL("ws", "/ws/host"), &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, fmt.Errorf("connecting to daemon on port %d: %w", d.Port, err)
	}
	c.SetReadLimit(maxDiscard) // a message over maxWS is refused, not relayed (oversize.go)
	return c, nil
}

// offline answers the extension while no daemon is reachable, for one
// backoff period. It reports done when input ended, and the id of a
// daemon.start the extension sent.
func (r *relay) offline(ctx context.Context, wait time.Duration) (done bool, start int64, err error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case msg, ok := <-r.in:
			if !ok {
				return true, 0, nil
			}
			m := peek(msg)
			if m.Method == protocol.MethodDaemonStart && m.isRequest() {
				return false, m.ID, nil
			}
			if err := r.fromExtensionOffline(msg, m); err != nil {
				return true, 0, err
			}
		case <-t.C:
			return false, 0, nil
		case <-ctx.Done():
			return true, 0, nil
		}
	}
}

func (r *relay) fromExtensionOffline(msg []byte, m head) error {
	if m.Method == protocol.MethodHello && m.isRequest() {
		r.setHello(msg)
	}
	if !m.isRequest() {
		return nil
	}
	if r.stopped != nil {
		return r.replyError(m.ID, r.stopped)
	}
	return r.replyError(m.ID, unavailable())
}

func unavailable() *protocol.Error {
	e := protocol.Errorf(protocol.CodeDaemonUnavailable, true,
		"the Gasoline daemon is not reachable; gasoline-host is restarting it, retry shortly (gasoline-host doctor diagnoses a daemon that will not start)")
	e.RetryAfterMS = 500
	return e
}

// head is what the relay needs of a message: its id and method. It is
// read with gjson, without decoding params or results (CDP events and
// screenshots can be megabytes; the relay forwards them untouched).
type head struct {
	ID     int64
	Method string
}

func (h head) isRequest() bool { return h.ID != 0 && h.Method != "" }
func (h head) isReply() bool   { return h.ID != 0 && h.Method == "" }

// peek reads a message's head. Messages from Chrome were validated as JSON
// by the frame reader already, so this is one cheap scan.
func peek(msg []byte) head {
	res := gjson.GetManyBytes(msg, "id", "method")
	return head{ID: res[0].Int(), Method: res[1].String()}
}

func (r *relay) setHello(msg []byte) {
	r.mu.Lock()
	r.hello = append([]byte(nil), msg...)
	r.mu.Unlock()
}

func (r *relay) replyError(id int64, e *protocol.Error) error {
	out, _ := protocol.Reply(id, nil, e)
	return r.out.WriteMessage(out)
}

func (r *relay) event(method string, params any) {
	p, _ := json.Marshal(params)
	out, _ := json.Marshal(protocol.Message{Method: method, Params: p})
	if err := r.out.WriteMessage(out); err != nil {
		r.log.Warn("writing event to Chrome", "method", method, "err", err)
	}
}
