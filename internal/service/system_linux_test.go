package service

import (
	"errors"
	"strings"
	"testing"
)

// On a machine without systemd (a container, like CI here), status says so
// and succeeds; install fails with ErrNoManager and touches nothing.
func TestRealMachineWithoutSystemd(t *testing.T) {
	var u Unit
	if _, err := platformConfig(&u); !errors.Is(err, ErrNoManager) {
		t.Skip("this machine has a reachable systemd user manager")
	}
	t.Setenv("HOME", t.TempDir())
	out, err := runMain(t, "status")
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if !strings.HasPrefix(out, "gasoline service: unavailable: service: no service manager available") {
		t.Errorf("status output: %q", out)
	}
	if _, err := runMain(t, "install"); !errors.Is(err, ErrNoManager) {
		t.Errorf("install: got %v, want ErrNoManager", err)
	}
}
