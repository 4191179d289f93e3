package remote

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

func mode(t *testing.T, key string) *tools.Mode {
	t.Helper()
	tool, what, _ := strings.Cut(key, ".")
	m, ok := tools.Lookup(tool, what)
	if !ok {
		t.Fatalf("no mode %s", key)
	}
	return m
}

// A remote agent's scope: the tools and modes named, pages of the sites
// named (a blank tab always), never paths on the user's machine.
func TestScope(t *testing.T) {
	tl, err := ParseTools([]string{"observe", "interact.navigate", "interact.click"})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParseOrigins([]string{"http://localhost:*", "https://*.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	s := Scope{Name: "devbox", Tools: tl, Origins: ps}
	for _, tc := range []struct {
		name string
		call Call
		ok   bool
	}{
		{"a tool named", Call{Mode: mode(t, "observe.snapshot"), Page: "http://localhost:3000/x"}, true},
		{"a mode named", Call{Mode: mode(t, "interact.click"), Page: "https://app.example.com/"}, true},
		{"a mode not named", Call{Mode: mode(t, "interact.execute_js"), Page: "http://localhost:3000/"}, false},
		{"another tool", Call{Mode: mode(t, "configure.health")}, false},
		{"navigate in scope", Call{Mode: mode(t, "interact.navigate"), Target: "http://localhost:5173/"}, true},
		{"navigate out of scope", Call{Mode: mode(t, "interact.navigate"), Target: "https://bank.example/"}, false},
		{"a look-alike", Call{Mode: mode(t, "interact.navigate"), Target: "https://example.com.evil.test/"}, false},
		{"not http", Call{Mode: mode(t, "interact.navigate"), Target: "file:///etc/passwd"}, false},
		{"a blank tab", Call{Mode: mode(t, "observe.page"), Page: "about:blank"}, true},
		{"a tab that left the sites", Call{Mode: mode(t, "observe.page"), Page: "https://bank.example/"}, false},
		{"paths", Call{Mode: mode(t, "observe.page"), Paths: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := s.Check(tc.call)
			if (e == nil) != tc.ok {
				t.Fatalf("Check = %v, want ok=%v", e, tc.ok)
			}
			if e != nil && (e.Code != CodeOutOfScope || !strings.Contains(e.Message, "devbox")) {
				t.Fatalf("error %+v", e)
			}
		})
	}
	for _, bad := range [][]string{{"browser"}, {"interact.fly"}, {""}} {
		if _, err := ParseTools(bad); err == nil {
			t.Errorf("ParseTools(%q) accepted", bad)
		}
	}
	for _, bad := range [][]string{{"file:///"}, {"chrome-extension://x"}, {"https://a/*"}, {""}} {
		if _, err := ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) accepted", bad)
		}
	}
}

// The store keeps the credential's hash only; Identify knows a live
// credential, refuses a revoked or expired one, and the registry tells
// Ended — on time for an expiry (virtual time), at once for a revoke.
func TestRegistryIdentifiesEndsAndExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		start := time.Now()
		short, a, err := Add(dir, AddOptions{Name: "devbox", Tools: DefaultTools, Origins: []string{"*"}, TTL: time.Hour, Client: "claude"}, start)
		if err != nil {
			t.Fatal(err)
		}
		long, _, err := Add(dir, AddOptions{Name: "ci", Tools: []string{"observe"}, Origins: []string{"*"}, TTL: 3 * time.Hour, Client: "codex"}, start)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Add(dir, AddOptions{Name: "devbox", Tools: DefaultTools, Origins: []string{"*"}, TTL: time.Hour, Client: "claude"}, start); err == nil {
			t.Fatal("a second live devbox was added")
		}
		raw, _ := os.ReadFile(Path(dir))
		if strings.Contains(string(raw), short) || !strings.Contains(string(raw), hashToken(short)) {
			t.Fatalf("the store must keep the hash, never the credential:\n%s", raw)
		}
		if fi, _ := os.Stat(Path(dir)); fi.Mode().Perm() != 0o600 {
			t.Fatalf("store mode %v", fi.Mode().Perm())
		}

		var mu sync.Mutex
		var ended []string
		r := Open(Config{Dir: dir, Ended: func(p string) { mu.Lock(); ended = append(ended, p); mu.Unlock() }})
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()
		defer func() { stop(); <-done }()

		id, ok := r.Identify(short)
		if !ok || id.Role != creds.Remote || id.Name != "devbox" || id.Principal != a.Principal() {
			t.Fatalf("Identify = %+v %v", id, ok)
		}
		if _, ok := r.Identify(short[:len(short)-1] + "0"); ok && !strings.HasSuffix(short, "0") {
			t.Fatal("a wrong credential was identified")
		}
		if sc, ok := r.Scope(a.Principal()); !ok || sc.Name != "devbox" {
			t.Fatalf("Scope = %+v %v", sc, ok)
		}

		time.Sleep(time.Hour - time.Second)
		synctest.Wait()
		mu.Lock()
		early := len(ended)
		mu.Unlock()
		if _, ok := r.Identify(short); !ok || early != 0 {
			t.Fatalf("ended early: %d", early)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		mu.Lock()
		got := slices.Clone(ended)
		mu.Unlock()
		if len(got) != 1 || got[0] != a.Principal() {
			t.Fatalf("at expiry Ended was told %v, want %s", got, a.Principal())
		}
		if _, ok := r.Identify(short); ok {
			t.Fatal("an expired credential was identified")
		}
		if err := r.Revoke("ci"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, ok := r.Identify(long); ok {
			t.Fatal("a revoked credential was identified")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(ended) != 2 {
			t.Fatalf("revoke did not end the agent at once: %v", ended)
		}
		if err := r.Revoke("ci"); err == nil {
			t.Fatal("revoking twice")
		}
	})
}
