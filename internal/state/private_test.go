package state

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestReadPrivateJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	var v struct{ A int }
	if found, err := ReadPrivateJSON(p, &v); found || err != nil {
		t.Fatalf("missing file: %v %v", found, err)
	}
	write := func(body string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	write(`{"A":3}`, 0o600)
	if found, err := ReadPrivateJSON(p, &v); !found || err != nil || v.A != 3 {
		t.Fatalf("good file: %v %v %+v", found, err, v)
	}
	for _, bad := range []string{`{"A":`, `{"B":1}`, `[]`} {
		write(bad, 0o600)
		if _, err := ReadPrivateJSON(p, &v); !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: %v, want ErrSyntax", bad, err)
		}
	}
	if runtime.GOOS != "windows" {
		write(`{"A":3}`, 0o644)
		var te *TooOpenError
		if _, err := ReadPrivateJSON(p, &v); !errors.As(err, &te) || te.Mode != 0o644 {
			t.Fatalf("a world-readable file: %v", err)
		}
	}
}
