package policy

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestPath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("GASOLINE_HOME", home)
	t.Setenv("GASOLINE_POLICY", "")
	if p, err := Path(); err != nil || p != filepath.Join(home, "policy.json") {
		t.Errorf("Path() = %q, %v; want %s", p, err, filepath.Join(home, "policy.json"))
	}
	other := filepath.Join(t.TempDir(), "rules.json")
	t.Setenv("GASOLINE_POLICY", other)
	if p, err := Path(); err != nil || p != other {
		t.Errorf("Path() with GASOLINE_POLICY = %q, %v; want %s", p, err, other)
	}
}

func TestLoadMissingIsDefault(t *testing.T) {
	p, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if err != nil || p.Version != 0 || len(p.Rules) != 0 {
		t.Fatalf("Load(missing) = %+v, %v; want the default policy", p, err)
	}
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "policy.json")
	in := mustParse(t, `{"version":4,"rules":[{"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"}]}`)
	if err := Save(path, in); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("policy file mode = %v, want 0600", fi.Mode().Perm())
	}
	out, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Version != 4 || len(out.Rules) != 1 || out.Rules[0].Origin != "https://*.bank.com" {
		t.Fatalf("Load after Save = %+v", out)
	}
	if eff, _ := out.Decide(Sensitive, "interact.execute_js", "https://online.bank.com"); eff != Deny {
		t.Errorf("loaded rule decides %s, want deny", eff)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) != 0 {
		t.Errorf("temp files left behind: %v", left)
	}
	bad := &Policy{Rules: []Rule{{Effect: "maybe", Class: "*", Action: "*", Origin: "*"}}}
	if err := Save(path, bad); err == nil {
		t.Error("Save accepted an invalid policy")
	}
}

// TestStoreFailsClosed: a broken file denies mutating and sensitive calls
// with a reason, keeps reads working, and still lets the user approve a fix
// of the policy itself.
func TestStoreFailsClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, []byte(`{"rules":[{"effect":"allow"`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path)
	if s.Err() == nil {
		t.Fatal("Open of a broken file: Err() = nil")
	}
	tests := []struct {
		class  Class
		action string
		want   Effect
	}{
		{ReadOnly, "observe.snapshot", Allow},
		{Mutating, "interact.click", Deny},
		{Sensitive, "interact.execute_js", Deny},
		{Mutating, "configure.policy", Gate},
	}
	for _, tt := range tests {
		eff, _, err := s.Evaluate(tt.class, tt.action, "https://shop.example")
		if eff != tt.want || err == nil || !strings.Contains(err.Error(), "broken") {
			t.Errorf("Evaluate(%s %s) = %s, %v; want %s with a 'broken' error", tt.class, tt.action, eff, err, tt.want)
		}
	}
}

// TestStoreReloadsOnChange: a hand edit of the file takes effect on the
// next call, a broken edit fails closed, and deleting the file returns to
// the default.
func TestStoreReloadsOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	s := Open(path)
	decide := func() (Effect, error) {
		eff, _, err := s.Evaluate(Mutating, "interact.click", "http://127.0.0.1:3000")
		return eff, err
	}
	if eff, err := decide(); eff != Gate || err != nil {
		t.Fatalf("no file: %s, %v; want gate", eff, err)
	}
	write := func(body string) {
		t.Helper()
		// Through a rename, as editors and Save do, so the inode changes.
		tmp := path + ".new"
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"version":1,"rules":[{"effect":"allow","class":"*","action":"*","origin":"http://127.0.0.1:*"}]}`)
	if eff, err := decide(); eff != Allow || err != nil {
		t.Fatalf("after allow edit: %s, %v; want allow", eff, err)
	}
	write(`{"version":2,"rules":[`)
	if eff, err := decide(); eff != Deny || err == nil {
		t.Fatalf("after broken edit: %s, %v; want deny with an error", eff, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if eff, err := decide(); eff != Gate || err != nil {
		t.Fatalf("after delete: %s, %v; want gate", eff, err)
	}
}

func TestStoreReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	s := Open(path)
	rules := []Rule{{Effect: Allow, Class: "*", Action: "*", Origin: "http://127.0.0.1:*"}}
	for want := 1; want <= 2; want++ {
		p, err := s.Replace(&Policy{Version: 99, Rules: rules})
		if err != nil || p.Version != want {
			t.Fatalf("Replace #%d = %+v, %v; want version %d", want, p, err, want)
		}
	}
	cur, err := s.Current()
	if err != nil || cur.Version != 2 {
		t.Fatalf("Current = %+v, %v", cur, err)
	}
	if _, err := s.Replace(&Policy{Rules: []Rule{{Effect: Allow, Class: "*", Action: "*", Origin: "bank.com"}}}); err == nil {
		t.Fatal("Replace accepted an invalid policy")
	}
	if cur, _ := s.Current(); cur.Version != 2 {
		t.Fatalf("a refused Replace changed the policy: version %d", cur.Version)
	}
	// Replacing also repairs a broken file.
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Reload(); err == nil {
		t.Fatal("Reload of a broken file: no error")
	}
	if p, err := s.Replace(&Policy{Rules: rules}); err != nil || p.Version != 1 {
		t.Fatalf("Replace over a broken file = %+v, %v", p, err)
	}
	if errors.Is(s.Err(), os.ErrNotExist) || s.Err() != nil {
		t.Fatalf("Err after repair = %v", s.Err())
	}
}
