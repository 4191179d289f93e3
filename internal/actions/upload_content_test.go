package actions

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Upload by content: plain names only, valid base64, 25 MiB decoded in
// all; the files are written 0600 in a 0700 folder of the daemon's own.
func TestUploadContentsChecksAndWrites(t *testing.T) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, bad := range [][]FileContent{
		nil,
		{{Name: "../x", Base64: b64("a")}},
		{{Name: "a/b", Base64: b64("a")}},
		{{Name: "..", Base64: b64("a")}},
		{{Name: "x\n", Base64: b64("a")}},
		{{Name: "x", Base64: "not base64!"}},
		{{Name: "big", Base64: base64.StdEncoding.EncodeToString(make([]byte, MaxContentBytes+1))}},
		{{Name: "a", Base64: base64.StdEncoding.EncodeToString(make([]byte, MaxContentBytes/2+1))}, {Name: "b", Base64: base64.StdEncoding.EncodeToString(make([]byte, MaxContentBytes/2+1))}},
	} {
		if _, err := checkContents(bad); err == nil {
			t.Errorf("accepted %v", bad)
		}
	}
	got, err := checkContents([]FileContent{{Name: "report.txt", Type: "text/plain", Base64: b64("hello")}, {Name: "report.txt", Base64: b64("again")}})
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{cfg: Config{Uploads: filepath.Join(t.TempDir(), "uploads")}}
	paths, err := e.writeContents(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] == paths[1] || filepath.Base(paths[1]) != "report.txt" {
		t.Fatalf("paths %v", paths)
	}
	for i, want := range []string{"hello", "again"} {
		raw, _ := os.ReadFile(paths[i])
		fi, _ := os.Stat(paths[i])
		if string(raw) != want || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %q %v", paths[i], raw, fi.Mode())
		}
	}
	if fi, _ := os.Stat(e.cfg.Uploads); fi.Mode().Perm() != 0o700 {
		t.Fatalf("uploads folder %v", fi.Mode())
	}
	d := DescribeContents([]FileContent{{Name: "r.pdf", Type: "application/pdf", Base64: b64("12345")}})
	if !strings.Contains(d, `"r.pdf" (application/pdf, `) {
		t.Fatalf("DescribeContents = %s", d)
	}
}
