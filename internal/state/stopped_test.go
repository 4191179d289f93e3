package state

import (
	"os"
	"testing"
)

func TestStoppedMarker(t *testing.T) {
	dir := t.TempDir()
	if _, ok := Stopped(dir); ok {
		t.Fatal("a fresh directory reports a stop")
	}
	if err := MarkStopped(dir, Stop{By: "SIGTERM", PID: 42}); err != nil {
		t.Fatal(err)
	}
	s, ok := Stopped(dir)
	if !ok || s.By != "SIGTERM" || s.PID != 42 || s.At.IsZero() {
		t.Fatalf("Stopped = %+v, %v", s, ok)
	}
	if fi, _ := os.Stat(StoppedPath(dir)); fi.Mode().Perm() != 0o600 {
		t.Errorf("marker mode %v, want 0600", fi.Mode().Perm())
	}
	if err := ClearStopped(dir); err != nil {
		t.Fatal(err)
	}
	if _, ok := Stopped(dir); ok {
		t.Fatal("the marker survived ClearStopped")
	}
	if err := ClearStopped(dir); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
	os.WriteFile(StoppedPath(dir), []byte("{broken"), 0o600)
	if s, ok := Stopped(dir); !ok || s.By == "" {
		t.Fatalf("a corrupt marker must still count as a stop: %+v %v", s, ok)
	}
}
