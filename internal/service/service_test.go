package service

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kardianos/service"

	"github.com/gasoline-mcp/gasoline/internal/state"
)

// fakeSvc stands in for the OS service manager.
type fakeSvc struct {
	calls     []string
	installed bool
	running   bool
	unitFile  string
	text      string
	cfg       *service.Config
}

func (f *fakeSvc) Run() error { return nil }
func (f *fakeSvc) Start() error {
	f.calls = append(f.calls, "start")
	f.running = true
	return nil
}
func (f *fakeSvc) Stop() error {
	f.calls = append(f.calls, "stop")
	f.running = false
	return nil
}
func (f *fakeSvc) Restart() error { return nil }
func (f *fakeSvc) Install() error {
	f.calls = append(f.calls, "install")
	f.installed = true
	return os.WriteFile(f.unitFile, []byte(f.text), 0o644)
}
func (f *fakeSvc) Uninstall() error {
	f.calls = append(f.calls, "uninstall")
	f.installed = false
	return os.Remove(f.unitFile)
}
func (f *fakeSvc) Logger(chan<- error) (service.Logger, error)       { return nil, nil }
func (f *fakeSvc) SystemLogger(chan<- error) (service.Logger, error) { return nil, nil }
func (f *fakeSvc) String() string                                    { return "fake" }
func (f *fakeSvc) Platform() string                                  { return "fake" }
func (f *fakeSvc) Status() (service.Status, error) {
	switch {
	case !f.installed:
		return service.StatusUnknown, service.ErrNotInstalled
	case f.running:
		return service.StatusRunning, nil
	}
	return service.StatusStopped, nil
}

// useFake routes Main to a fake manager whose definition is unit text.
func useFake(t *testing.T) *fakeSvc {
	t.Helper()
	f := &fakeSvc{unitFile: filepath.Join(t.TempDir(), "gasoline.service")}
	oldP, oldN := platformFor, newService
	t.Cleanup(func() { platformFor, newService = oldP, oldN })
	platformFor = func(u *Unit) (platform, error) {
		u.Name = "gasoline"
		text, err := SystemdUnit(*u)
		f.text = text
		return platform{label: "fake manager", unitFile: f.unitFile, text: text}, err
	}
	newService = func(_ service.Interface, c *service.Config) (service.Service, error) {
		f.cfg = c
		return f, nil
	}
	return f
}

func runMain(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Main(context.Background(), args, &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestLifecycle(t *testing.T) {
	home := t.TempDir()
	t.Setenv("GASOLINE_HOME", home)
	f := useFake(t)
	steps := []struct {
		args  []string
		out   string // substring of the output
		calls []string
	}{
		{[]string{"status"}, "gasoline service: not installed gasoline (fake manager, " + f.unitFile + ")", nil},
		{[]string{"install"}, "service: installed gasoline", []string{"install"}},
		{[]string{"install"}, "service: unchanged gasoline", nil},
		{[]string{"status"}, "gasoline service: stopped", nil},
		{[]string{"start"}, "service: started", []string{"start"}},
		{[]string{"status"}, "gasoline service: running", nil},
		{[]string{"stop"}, "stays stopped until", []string{"stop"}},
		{[]string{"status"}, "gasoline service: stopped", nil},
		{[]string{"start"}, "service: started", []string{"start"}},
		{[]string{"uninstall"}, "service: removed", []string{"stop", "uninstall"}},
		{[]string{"uninstall"}, "service: not installed", nil},
	}
	wantStopped := false // from a stop until the next start
	for _, s := range steps {
		f.calls = nil
		out, err := runMain(t, s.args...)
		wantStopped = s.args[0] == "stop" || (wantStopped && s.args[0] != "start")
		if _, stopped := state.Stopped(home); stopped != wantStopped {
			t.Errorf("%v: deliberate stop recorded = %v", s.args, stopped)
		}
		if err != nil {
			t.Fatalf("%v: %v\n%s", s.args, err, out)
		}
		if !strings.Contains(out, s.out) {
			t.Errorf("%v: output %q lacks %q", s.args, out, s.out)
		}
		if !reflect.DeepEqual(f.calls, s.calls) {
			t.Errorf("%v: manager calls %q, want %q", s.args, f.calls, s.calls)
		}
	}
	if got := f.cfg.Arguments; !reflect.DeepEqual(got, []string{"daemon"}) {
		t.Errorf("service arguments %q, want [daemon]", got)
	}
	if got := f.cfg.EnvVars["GASOLINE_HOME"]; got != home {
		t.Errorf("GASOLINE_HOME passed as %q", got)
	}
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	if f.cfg.Executable != self {
		t.Errorf("executable %q, want %q", f.cfg.Executable, self)
	}
	if _, err := runMain(t, "start"); err == nil || !strings.Contains(err.Error(), "service install") {
		t.Errorf("start when not installed: got %v, want a hint to install", err)
	}
}

// A changed definition (say the binary moved) replaces the old one.
func TestInstallReplacesChangedUnit(t *testing.T) {
	f := useFake(t)
	if _, err := runMain(t, "install"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.unitFile, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.calls = nil
	out, err := runMain(t, "install")
	if err != nil || !strings.Contains(out, "reinstalled") {
		t.Fatalf("install over a changed unit: err %v, output %q", err, out)
	}
	if want := []string{"stop", "uninstall", "install"}; !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
}

func TestNoManager(t *testing.T) {
	home := t.TempDir()
	t.Setenv("GASOLINE_HOME", home)
	t.Setenv("GASOLINE_PORT", "1") // nothing answers there
	old := platformFor
	t.Cleanup(func() { platformFor = old })
	platformFor = func(u *Unit) (platform, error) {
		return platform{}, errors.Join(ErrNoManager, errors.New("systemd is not running here"))
	}
	out, err := runMain(t, "status")
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if !strings.Contains(out, "unavailable") || !strings.Contains(out, "no service manager") || !strings.Contains(out, "on demand") {
		t.Errorf("status output %q does not say plainly that there is no service manager", out)
	}
	if _, err := runMain(t, "install"); !errors.Is(err, ErrNoManager) {
		t.Errorf("install: got %v, want ErrNoManager", err)
	}
	// stop still stops Gasoline: the deliberate stop is recorded (and a
	// daemon started on demand would be stopped); start clears it.
	if out, err := runMain(t, "stop"); err != nil || !strings.Contains(out, "stays stopped") {
		t.Errorf("stop: %v %q", err, out)
	}
	if _, stopped := state.Stopped(home); !stopped {
		t.Error("stop without a manager recorded no deliberate stop")
	}
	if out, err := runMain(t, "uninstall"); err != nil || !strings.Contains(out, "nothing to remove") {
		t.Errorf("uninstall: got %v, output %q; want success with nothing to remove", err, out)
	}
}

func TestBadCommand(t *testing.T) {
	for _, args := range [][]string{nil, {"restart"}, {"install", "extra"}} {
		if _, err := runMain(t, args...); err == nil {
			t.Errorf("%q: got nil error", args)
		}
	}
}
