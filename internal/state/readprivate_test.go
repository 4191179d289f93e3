//go:build unix

package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// ReadPrivateFile reads the user's own regular file and refuses what
// someone else could have planted or changed, without following a link.
func TestReadPrivateFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.json", 0o600, "{}")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		want       error
	}{
		{"own file", ok, nil},
		{"missing", filepath.Join(dir, "none.json"), fs.ErrNotExist},
		{"symlink", link, ErrUnsafe},
		{"open to others", write("open.json", 0o644, "{}"), ErrUnsafe},
		{"a FIFO (does not block)", fifo, ErrUnsafe},
		{"too large", write("big.json", 0o600, "0123456789"), ErrTooLarge},
	} {
		// The system-call reader (unix) and the os.File one (elsewhere).
		for impl, read := range map[string]func(string, int64) ([]byte, error){"syscalls": ReadPrivateFile, "os.File": readPrivateFile} {
			t.Run(c.name+"/"+impl, func(t *testing.T) {
				raw, err := read(c.path, 8)
				if c.want == nil && (err != nil || string(raw) != "{}") {
					t.Fatalf("got %q, %v; want {}", raw, err)
				}
				if c.want != nil && !errors.Is(err, c.want) {
					t.Fatalf("err %v, want %v", err, c.want)
				}
			})
		}
	}
}
