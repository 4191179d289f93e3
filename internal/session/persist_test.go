package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// A daemon that stops keeps its sessions in the file; the next one brings
// them back degraded, a client resumes its own, and sessions that end
// (closed, or expired after the TTL) leave the file.
func TestSessionsSurviveARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		file := filepath.Join(t.TempDir(), FileName)
		opts := &Options{File: file, TTL: time.Minute}
		ctx, stop := context.WithCancel(context.Background())
		m := New(ctx, opts)
		a, _, _, _ := m.Claim("a", Stdio, Binding{Principal: principalAgent, Key: "key-of-a"})
		a.SetClient(Client{Name: "claude-code", Version: "2"})
		m.Claim("b", HTTP, Binding{Principal: "remote:r1", Remote: "devbox"})
		m.Get("b").SetInit([]byte(`{"protocolVersion":"2025-06-18"}`))
		m.Claim("c", Stdio, Binding{Principal: principalAgent, Key: "key-of-c"})
		m.Close("c")
		m.Attach("p", Transport("panel")) // made again at each start: not kept
		stop()
		m.Wait()
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"a"`, `"b"`, "claude-code"} {
			if !strings.Contains(string(raw), want) {
				t.Fatalf("the file lacks %s:\n%s", want, raw)
			}
		}
		if strings.Contains(string(raw), `"c"`) || strings.Contains(string(raw), `"p"`) {
			t.Fatalf("an ended or panel session was kept:\n%s", raw)
		}
		if strings.Contains(string(raw), "key-of-a") || !strings.Contains(string(raw), keyHash("key-of-a")) {
			t.Fatalf("the file must keep the resume key's hash, never the key:\n%s", raw)
		}
		if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v", fi.Mode().Perm())
		}

		m2, _ := newManager(t, opts)
		got := m2.Get("a")
		if got == nil || got.Info().State != Degraded || got.Info().Client.Name != "claude-code" || got.Info().Transport != Stdio {
			t.Fatalf("restored session a = %+v", got)
		}
		if _, _, _, err := m2.Claim("a", Stdio, Binding{Principal: principalAgent, Key: "another key"}); err != ErrNotYours {
			t.Fatalf("a restored stdio session was resumed without its key: %v", err)
		}
		if _, _, resumed, _ := m2.Claim("a", Stdio, Binding{Principal: principalAgent, Key: "key-of-a"}); !resumed {
			t.Fatal("the client did not resume its session")
		}
		b := m2.Get("b")
		if b == nil || b.Remote() != "devbox" || b.Principal() != "remote:r1" || !strings.Contains(string(b.Init()), `"2025-06-18"`) {
			t.Fatalf("restored session b = %+v", b)
		}
		if s, err := m2.Lookup("b", HTTP, Binding{Principal: principalAgent}); s != nil || err != ErrNotYours {
			t.Fatalf("another credential looked up b: %v %v", s, err)
		}
		done := m2.Get("b").Done()
		time.Sleep(2 * time.Minute) // virtual: b never came back
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("a restored session that nobody resumed did not expire")
		}
		raw, _ = os.ReadFile(file)
		if strings.Contains(string(raw), `"b"`) || !strings.Contains(string(raw), `"a"`) {
			t.Fatalf("after b expired:\n%s", raw)
		}
	})
}

// A session starting or naming its client does not wait for the sessions
// file: with the disk held up, Attach and SetClient return (under the old
// synchronous write both waited, and the bubble deadlocked), and once it
// frees, the file holds the newest state.
func TestSessionsFileIsWrittenOffTheCallersPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		file := filepath.Join(t.TempDir(), FileName)
		held := make(chan struct{})
		opts := &Options{File: file, write: func(path string, data []byte) error {
			<-held
			return os.WriteFile(path, data, 0o600)
		}}
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		m := New(ctx, opts)
		returned := make(chan struct{})
		go func() {
			a, _, _, _ := m.Attach("a", Stdio)
			a.SetClient(Client{Name: "claude-code", Version: "2"})
			m.Attach("b", HTTP)
			close(returned)
		}()
		synctest.Wait()
		select {
		case <-returned:
		default:
			t.Error("Attach or SetClient waited for the sessions file to be written")
		}
		close(held)
		synctest.Wait()
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"a"`, `"b"`, "claude-code"} {
			if !strings.Contains(string(raw), want) {
				t.Fatalf("the file lacks %s:\n%s", want, raw)
			}
		}
		stop()
		m.Wait()
	})
}

// A sessions file of a daemon from before sessions were bound names no
// credential: nothing in it resumes (anyone who knew an id could have).
func TestUnboundRecordsDoNotResume(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	old := `{"version":1,"sessions":[{"session":"old-stdio","transport":"stdio","client":{"name":"x","version":"1"},"created_at":"2025-01-01T00:00:00Z"},` +
		`{"session":"old-http","transport":"http","client":{"name":"y","version":"1"},"created_at":"2025-01-01T00:00:00Z"},` +
		`{"session":"keyless-stdio","transport":"stdio","principal":"agent","client":{"name":"z","version":"1"},"created_at":"2025-01-01T00:00:00Z"}]}`
	if err := os.WriteFile(file, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := newManager(t, &Options{File: file})
	if n := m.Len(); n != 0 {
		t.Fatalf("%d unbound sessions restored: %+v", n, m.List())
	}
}
