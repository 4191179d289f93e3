package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newManager is a Manager over fake processes, in dir, with $SHELL and
// $HOME set.
func newManager(t *testing.T, st *starter, cfg Config) *Manager {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	cfg.Start = st.start
	cfg.Env = []string{"SHELL=/bin/fakesh", "HOME=/home/u", "TERM=dumb", "LANG=C.UTF-8"}
	return New(cfg)
}

// The process starts on the first keystroke, not on open, with the
// view's size, the login shell and the home directory; its output reaches
// the panel, and its exit follows its last output. The next keystroke
// starts a new one.
func TestStartsOnFirstKeystroke(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		m := newManager(t, st, Config{})
		defer m.Close()
		p := newPeer()
		id := openView(t, m, p, 100, 30)
		synctest.Wait()
		require.Zero(t, st.count(), "nothing runs before the first keystroke")

		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "ls\r"})
		proc := <-st.made
		require.Equal(t, []string{"/bin/fakesh", "-l"}, proc.spec.Argv)
		require.Equal(t, "/home/u", proc.spec.Dir)
		require.Equal(t, 100, proc.spec.Cols)
		require.Equal(t, 30, proc.spec.Rows)
		require.Contains(t, proc.spec.Env, "TERM=xterm-256color")
		require.NotContains(t, proc.spec.Env, "TERM=dumb")
		require.Equal(t, "ls\r", string(<-proc.typed))

		proc.say("file.txt\r\n")
		proc.say("$ ")
		synctest.Wait()
		out := p.next(t)
		require.Equal(t, EventOutput, out.Method)
		require.Equal(t, id, out.TermID)
		require.Equal(t, "file.txt\r\n", string(out.Data))
		require.Equal(t, "$ ", string(p.next(t).Data))

		proc.end(ExitStatus{Code: 3})
		synctest.Wait()
		exit := p.next(t)
		require.Equal(t, EventExit, exit.Method)
		require.Equal(t, 3, *exit.Code)
		require.Zero(t, m.Running())
		require.Equal(t, 1, m.Views(), "the view stays for the next session")

		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": ""})
		second := <-st.made
		synctest.Wait()
		require.Equal(t, 2, st.count())
		select {
		case b := <-second.typed:
			t.Fatalf("an empty input only starts; it typed %q", b)
		default:
		}
		require.Equal(t, 1, m.Running())
	})
}

// Closing the view hangs the process up; one that ignores the hang-up is
// killed 3 s later, not before.
func TestCloseHangsUpThenKills(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		st.config = func(p *fakeProc) { p.ignoreHangup = true }
		m := newManager(t, st, Config{})
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "x"})
		proc := <-st.made
		<-proc.typed

		start := time.Now()
		raw, _ := json.Marshal(map[string]string{"term_id": id})
		_, perr := m.Serve(t.Context(), p, MethodClose, raw)
		require.Nil(t, perr)
		synctest.Wait()
		require.Equal(t, []Signal{Hangup}, proc.gotSignals())
		time.Sleep(DefaultKillAfter - time.Millisecond)
		synctest.Wait()
		require.Equal(t, []Signal{Hangup}, proc.gotSignals(), "killed before its 3 s")
		time.Sleep(time.Millisecond)
		synctest.Wait()
		require.Equal(t, []Signal{Hangup, Kill}, proc.gotSignals())
		require.Equal(t, DefaultKillAfter, time.Since(start))
		m.Close()
		p.none(t) // a closed view hears nothing more
		require.Zero(t, m.Views())
	})
}

// A process that ends on the hang-up is not killed.
func TestHangupIsEnough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		m := newManager(t, st, Config{})
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "x"})
		proc := <-st.made
		m.Drop(p) // the link went away
		synctest.Wait()
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Equal(t, []Signal{Hangup}, proc.gotSignals())
		m.Close()
	})
}

// Output waits for the panel's credit: never more than the window is
// unacknowledged, in pieces of at most MaxChunk bytes.
func TestOutputWaitsForCredit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		m := newManager(t, st, Config{Window: 100})
		defer m.Close()
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "yes\r"})
		proc := <-st.made
		for range 10 {
			proc.say(strings.Repeat("y", 30))
		}
		synctest.Wait()
		sent := drain(p)
		require.Equal(t, 100, sent, "unacknowledged output stays within the window")

		event(t, m, p, EventAck, map[string]any{"term_id": id, "bytes": 40})
		synctest.Wait()
		require.Equal(t, 40, drain(p))
		event(t, m, p, EventAck, map[string]any{"term_id": id, "bytes": 1000})
		synctest.Wait()
		require.Equal(t, 100, drain(p), "never more than the window")
		event(t, m, p, EventAck, map[string]any{"term_id": id, "bytes": 100})
		synctest.Wait()
		require.Equal(t, 60, drain(p), "the rest")
	})
}

// drain is the output bytes the peer got so far.
func drain(p *peer) int {
	n := 0
	for {
		select {
		case m := <-p.got:
			if m.Method == EventOutput {
				n += len(m.Data)
			}
		default:
			return n
		}
	}
}

// Another link's events and closes do nothing to a view.
func TestOnlyTheOpeningLinkReachesTheView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		m := newManager(t, st, Config{})
		defer m.Close()
		owner, other := newPeer(), newPeer()
		id := openView(t, m, owner, 80, 24)
		event(t, m, other, EventInput, map[string]any{"term_id": id, "data": "rm -rf ~\r"})
		raw, _ := json.Marshal(map[string]string{"term_id": id})
		_, perr := m.Serve(t.Context(), other, MethodClose, raw)
		require.Nil(t, perr)
		m.Drop(other)
		synctest.Wait()
		require.Zero(t, st.count())
		require.Equal(t, 1, m.Views())
		other.none(t)
	})
}

// Input the program does not read is queued up to MaxQueuedInput; more is
// dropped and the panel told how much.
func TestInputOverflowIsDroppedAndSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		st.config = func(p *fakeProc) { p.reading = false }
		m := newManager(t, st, Config{})
		defer m.Close()
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		chunk := strings.Repeat("a", 64<<10)
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": chunk})
		synctest.Wait() // the writer is stuck writing it
		for range MaxQueuedInput/len(chunk) + 2 {
			event(t, m, p, EventInput, map[string]any{"term_id": id, "data": chunk})
		}
		synctest.Wait()
		dropped := 0
		for len(p.got) > 0 {
			got := p.next(t)
			require.Equal(t, EventDropped, got.Method)
			dropped += got.Bytes
		}
		require.Equal(t, 2*len(chunk), dropped, "a MiB is queued, the rest dropped")
	})
}

// A resize reaches the running process; one before the start sets its
// size.
func TestResize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		m := newManager(t, st, Config{})
		defer m.Close()
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		event(t, m, p, EventResize, map[string]any{"term_id": id, "cols": 120, "rows": 40})
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "x"})
		proc := <-st.made
		require.Equal(t, [2]int{120, 40}, [2]int{proc.spec.Cols, proc.spec.Rows})
		event(t, m, p, EventResize, map[string]any{"term_id": id, "cols": 60, "rows": 20})
		event(t, m, p, EventResize, map[string]any{"term_id": id, "cols": 0, "rows": 20}) // refused
		synctest.Wait()
		proc.mu.Lock()
		defer proc.mu.Unlock()
		require.Equal(t, [][2]int{{60, 20}}, proc.sizes)
	})
}

// A command that cannot start, or settings that cannot be trusted, end
// the session with a reason, and start nothing.
func TestStartFailuresSaySo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		st.fail = errors.New("the directory /nope does not exist; choose another in the terminal settings")
		m := newManager(t, st, Config{})
		defer m.Close()
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "x"})
		synctest.Wait()
		got := p.next(t)
		require.Equal(t, EventExit, got.Method)
		require.Contains(t, got.Error, "/nope does not exist")
		require.Zero(t, m.Running())
	})
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, SettingsFile), []byte(`{"command":"claude"}`), 0o644))
		require.NoError(t, os.Chmod(filepath.Join(dir, SettingsFile), 0o644))
		m := newManager(t, st, Config{Dir: dir})
		defer m.Close()
		p := newPeer()
		id := openView(t, m, p, 80, 24)
		event(t, m, p, EventInput, map[string]any{"term_id": id, "data": "x"})
		synctest.Wait()
		got := p.next(t)
		require.Contains(t, got.Error, "chmod 600")
		require.Zero(t, st.count(), "a command file others may write runs nothing")
	})
}

func TestViewLimitAndUnavailable(t *testing.T) {
	st := newStarter()
	m := newManager(t, st, Config{MaxViews: 2})
	defer m.Close()
	p := newPeer()
	openView(t, m, p, 80, 24)
	openView(t, m, p, 80, 24)
	_, perr := m.Serve(t.Context(), p, MethodOpen, nil)
	require.NotNil(t, perr)
	require.Equal(t, CodeLimit, perr.Code)

	none := New(Config{Dir: t.TempDir()})
	none.cfg.Start = nil // an OS without a PTY (Windows today)
	_, perr = none.Serve(t.Context(), p, MethodOpen, nil)
	require.NotNil(t, perr)
	require.Equal(t, CodeUnavailable, perr.Code)
	require.Contains(t, perr.Message, "not available on")

	_, perr = m.Serve(t.Context(), p, "term.exec", nil)
	require.Equal(t, protocol.CodeUnknownMethod, perr.Code)
}

func TestSettings(t *testing.T) {
	st := newStarter()
	dir := t.TempDir()
	m := newManager(t, st, Config{Dir: dir})
	defer m.Close()
	p := newPeer()
	res, perr := m.Serve(t.Context(), p, MethodSettingsGet, nil)
	require.Nil(t, perr)
	got := res.(map[string]any)
	assert.Equal(t, "", got["command"])
	assert.Equal(t, "/bin/fakesh -l", got["default_command"])
	assert.Equal(t, "/home/u", got["default_cwd"])

	work := t.TempDir()
	for _, tc := range []struct {
		name, params, code string
	}{
		{"unknown field", `{"command":"claude","shell":"/bin/zsh"}`, protocol.CodeBadRequest},
		{"two lines", `{"command":"claude\nrm -rf ~"}`, protocol.CodeBadRequest},
		{"relative dir", `{"cwd":"src"}`, protocol.CodeBadRequest},
		{"missing dir", `{"cwd":"/no/such/dir"}`, protocol.CodeBadRequest},
		{"too long", `{"command":"` + strings.Repeat("x", maxCommand+1) + `"}`, protocol.CodeBadRequest},
		{"ok", `{"command":" claude ","cwd":"` + work + `"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, perr := m.Serve(t.Context(), p, MethodSettingsSet, json.RawMessage(tc.params))
			if tc.code == "" {
				require.Nil(t, perr)
				return
			}
			require.NotNil(t, perr)
			require.Equal(t, tc.code, perr.Code, perr.Message)
		})
	}
	fi, err := os.Stat(filepath.Join(dir, SettingsFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	s, err := LoadSettings(dir)
	require.NoError(t, err)
	require.Equal(t, Settings{Command: "claude", Cwd: work}, s)
	argv, cwd := m.resolve(s)
	require.Equal(t, []string{"/bin/fakesh", "-l", "-c", "claude"}, argv)
	require.Equal(t, work, cwd)

	res, perr = m.Serve(t.Context(), p, MethodOpen, nil)
	require.Nil(t, perr)
	require.Equal(t, "claude", res.(map[string]any)["command"])
	require.Equal(t, work, res.(map[string]any)["cwd"])

	_, perr = m.Serve(t.Context(), p, MethodSettingsSet, json.RawMessage(`{"cwd":"~"}`))
	require.NotNil(t, perr, "~ is /home/u here, which does not exist")
	require.Contains(t, perr.Message, "/home/u")
}

// A malformed event is dropped; the link goes on.
func TestMalformedEvent(t *testing.T) {
	st := newStarter()
	m := newManager(t, st, Config{})
	defer m.Close()
	p := newPeer()
	m.Event(p, EventInput, json.RawMessage(`{"term_id":`))
	m.Event(p, EventInput, json.RawMessage(`{"term_id":"term_nope","data":"x"}`))
	require.Zero(t, st.count())
}

// restartPeer answers a term.exit at once with a key, as the panel does.
type restartPeer struct {
	*peer
	m  *Manager
	id string
}

func (p *restartPeer) Notify(ctx context.Context, method string, params any) error {
	if err := p.peer.Notify(ctx, method, params); err != nil {
		return err
	}
	if method == EventExit {
		raw, _ := json.Marshal(map[string]any{"term_id": p.id, "data": ""})
		p.m.Event(p, EventInput, raw)
	}
	return nil
}

// The view has no process by the time the panel hears of the exit, so the
// key the panel answers with starts a new one (and is not lost).
func TestKeyRightAfterExitStartsAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newStarter()
		m := newManager(t, st, Config{})
		defer m.Close()
		p := &restartPeer{peer: newPeer(), m: m}
		p.id = openView(t, m, p, 80, 24)
		event(t, m, p, EventInput, map[string]any{"term_id": p.id, "data": "exit\r"})
		first := <-st.made
		first.end(ExitStatus{Code: 0})
		synctest.Wait()
		require.Equal(t, 2, st.count())
		require.Equal(t, 1, m.Running())
	})
}
