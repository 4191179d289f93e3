//go:build !windows

package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Real processes on real PTYs (creack/pty), through the Manager.

// ackPeer is a link whose panel shows everything at once: it acknowledges
// each output as it arrives, and keeps the screen and the exit.
type ackPeer struct {
	m *Manager

	mu      sync.Mutex
	screen  bytes.Buffer
	largest int
	exit    *msg
	changed chan struct{} // a token on every message
}

func newAckPeer() *ackPeer { return &ackPeer{changed: make(chan struct{}, 1)} }

func (p *ackPeer) Notify(ctx context.Context, method string, params any) error {
	raw, _ := json.Marshal(params)
	var m msg
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	p.mu.Lock()
	switch method {
	case EventOutput:
		p.screen.Write(m.Data)
		p.largest = max(p.largest, len(m.Data))
	case EventExit:
		p.exit = &m
	}
	p.mu.Unlock()
	if method == EventOutput {
		ack, _ := json.Marshal(map[string]any{"term_id": m.TermID, "bytes": len(m.Data)})
		p.m.Event(p, EventAck, ack)
	}
	select {
	case p.changed <- struct{}{}:
	default:
	}
	return nil
}

// waitFor waits until the screen matches re (or the process exited, when
// re is nil); bounded as a safety net.
func (p *ackPeer) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		var got []string
		if re != nil {
			got = re.FindStringSubmatch(p.screen.String())
		} else if p.exit != nil {
			got = []string{"exit"}
		}
		screen := p.screen.String()
		p.mu.Unlock()
		if got != nil {
			return got
		}
		select {
		case <-p.changed:
		case <-deadline.C:
			t.Fatalf("waiting for %v; the screen: %q", re, screen)
		}
	}
}

func ptyManager(t *testing.T, cfg Config, command string) (*Manager, *ackPeer, string) {
	t.Helper()
	cfg.Dir = t.TempDir()
	cfg.Env = []string{"SHELL=/bin/sh", "HOME=" + cfg.Dir, "PATH=/usr/bin:/bin", "PS1=$ "}
	require.NoError(t, SaveSettings(cfg.Dir, Settings{Command: command}))
	m := New(cfg)
	t.Cleanup(m.Close)
	p := newAckPeer()
	p.m = m
	return m, p, openView(t, m, p, 100, 30)
}

func TestPTYRoundTrip(t *testing.T) {
	m, p, id := ptyManager(t, Config{}, `stty size; read line; echo "got:$line"; pwd; exit 7`)
	event(t, m, p, EventInput, map[string]any{"term_id": id, "data": ""})
	p.waitFor(t, regexp.MustCompile(`30 100`))
	event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "hello\r"})
	p.waitFor(t, regexp.MustCompile(`got:hello`))
	p.waitFor(t, nil)
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Equal(t, 7, *p.exit.Code)
	require.Contains(t, p.screen.String(), "hello\r\n", "the PTY echoes what was typed")
	require.Contains(t, p.screen.String(), m.cfg.Dir, "it ran in the chosen directory")
}

// A process that ignores the hang-up is killed after KillAfter, with its
// group; Close returns once it is reaped.
func TestPTYCloseKillsWhatIgnoresTheHangup(t *testing.T) {
	m, p, id := ptyManager(t, Config{KillAfter: 200 * time.Millisecond},
		`trap '' HUP; echo "pid=$$"; while :; do sleep 1; done`)
	event(t, m, p, EventInput, map[string]any{"term_id": id, "data": ""})
	pid, err := strconv.Atoi(p.waitFor(t, regexp.MustCompile(`pid=(\d+)`))[1])
	require.NoError(t, err)
	raw, _ := json.Marshal(map[string]string{"term_id": id})
	_, perr := m.Serve(t.Context(), p, MethodClose, raw)
	require.Nil(t, perr)
	m.Close()
	require.Zero(t, m.Running())
	require.True(t, errors.Is(syscall.Kill(pid, 0), syscall.ESRCH), "process %d is still there", pid)
}

// A flood of output arrives whole, in pieces no larger than MaxChunk.
func TestPTYFlood(t *testing.T) {
	m, p, id := ptyManager(t, Config{Window: 64 << 10}, `head -c 3000000 /dev/zero | tr '\0' x; echo; echo END`)
	event(t, m, p, EventInput, map[string]any{"term_id": id, "data": ""})
	p.waitFor(t, nil)
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Equal(t, 3_000_000, bytes.Count(p.screen.Bytes(), []byte("x")))
	require.Contains(t, p.screen.String(), "END")
	require.LessOrEqual(t, p.largest, MaxChunk)
}
