package download

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var navAccept = map[string]string{"Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Upgrade-Insecure-Requests": "1"}

func TestDetect(t *testing.T) {
	tests := []struct {
		name   string
		req    map[string]string
		status int
		resp   []Header
		want   bool
	}{
		{"a page", navAccept, 200, []Header{{"Content-Type", "text/html"}}, false},
		{"an attachment", navAccept, 200, []Header{{"content-disposition", `attachment; filename="r.csv"`}, {"Content-Type", "text/csv"}}, true},
		{"a bare attachment", navAccept, 200, []Header{{"Content-Disposition", "attachment"}}, true},
		{"inline", navAccept, 200, []Header{{"Content-Disposition", `inline; filename="r.pdf"`}, {"Content-Type", "application/pdf"}}, false},
		{"an <a download> request", map[string]string{"Referer": "http://x/"}, 200, []Header{{"Content-Type", "text/plain"}}, true},
		{"an archive", navAccept, 200, []Header{{"Content-Type", "application/zip"}}, true},
		{"an office file", navAccept, 200, []Header{{"Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}}, true},
		{"octets", navAccept, 200, []Header{{"Content-Type", "application/octet-stream; x=1"}}, true},
		{"no type", navAccept, 200, nil, false},
		{"JSON", navAccept, 200, []Header{{"Content-Type", "application/json"}}, false},
		{"an error page with an attachment", navAccept, 404, []Header{{"Content-Disposition", "attachment"}}, false},
		{"a redirect", map[string]string{}, 302, nil, false},
	}
	for _, tt := range tests {
		if got := Detect(tt.req, tt.status, tt.resp); got != tt.want {
			t.Errorf("%s: Detect = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFilenameAndSafeName(t *testing.T) {
	tests := []struct {
		url  string
		resp []Header
		want string
	}{
		{"http://x/a/report.csv?x=1", nil, "report.csv"},
		{"http://x/dl", []Header{{"Content-Disposition", `attachment; filename="Q3 report.xlsx"`}}, "Q3 report.xlsx"},
		{"http://x/dl", []Header{{"Content-Disposition", `attachment; filename*=UTF-8''%C3%A9t%C3%A9.txt`}}, "été.txt"},
		{"http://x/dl", []Header{{"Content-Disposition", `attachment; filename="../../.bashrc"`}}, "bashrc"},
		{"http://x/", nil, "download"},
		{"blob:http://x/uuid", nil, "download"},
		{"http://x/%2e%2e", nil, "download"},
	}
	for _, tt := range tests {
		if got := Filename(tt.url, tt.resp); got != tt.want {
			t.Errorf("Filename(%s, %v) = %q, want %q", tt.url, tt.resp, got, tt.want)
		}
	}
	for in, want := range map[string]string{"a/b\\c:d": "c_d", "\x00x": "_x", "  .hidden": "hidden", "...": "download"} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
	long := SafeName(strings.Repeat("é", 100) + ".tar.gz")
	if len(long) > 120 || !strings.HasSuffix(long, ".gz") || !strings.HasPrefix(long, "é") {
		t.Errorf("long name kept %d bytes: %q", len(long), long)
	}
}

func TestStoreWrite(t *testing.T) {
	s := NewStore(t.TempDir())
	put := func(parts ...string) func(func([]byte) error) error {
		return func(p func([]byte) error) error {
			for _, x := range parts {
				if err := p([]byte(x)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	path, size, sum, text, err := s.Write("a.txt", put("hello ", "world\n"))
	if err != nil || size != 12 || text != "hello world\n" || sum != "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447" {
		t.Fatalf("%s %d %s %q %v", path, size, sum, text, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(s.Dir()); st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", st.Mode().Perm())
	}
	p2, _, _, _, _ := s.Write("a.txt", put("again"))
	if filepath.Base(p2) != "a (2).txt" {
		t.Errorf("second file %s", p2)
	}
	if first, _ := os.ReadFile(path); string(first) != "hello world\n" {
		t.Error("the second download replaced the first")
	}
	_, _, _, text, _ = s.Write("b.bin", put("\x00\x01"))
	if text != "" {
		t.Errorf("binary shown as text: %q", text)
	}
	_, _, _, text, _ = s.Write("big.txt", put(strings.Repeat("x", MaxText+1)))
	if text != "" {
		t.Error("text over MaxText shown")
	}
	boom := errors.New("boom")
	if _, _, _, _, err := s.Write("c.txt", func(p func([]byte) error) error { p([]byte("part")); return boom }); !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	entries, _ := os.ReadDir(s.Dir())
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".part-") || e.Name() == "c.txt" {
			t.Errorf("a failed download left %s", e.Name())
		}
	}
}

func TestStoreRecords(t *testing.T) {
	s := NewStore(t.TempDir())
	a := s.Begin("s1", 7, "http://x/a", "a", "text/plain", 1, Pending)
	s.Begin("s2", 8, "http://x/b", "b", "", 0, Canceled)
	s.Update(a, func(r *Record) { r.State = Saved })
	got := s.List("s1", 10)
	if len(got) != 1 || got[0].State != Saved || got[0].Tab != 7 {
		t.Errorf("%+v", got)
	}
	for range MaxKept + 5 {
		s.Begin("s3", 9, "u", "n", "", 0, Saved)
	}
	if n := len(s.List("s3", 10000)); n != MaxKept {
		t.Errorf("kept %d", n)
	}
	if len(s.List("s1", 10)) != 0 {
		t.Error("the oldest records go first")
	}
}

// FuzzFilename: a download's URL and headers come from the web; the name
// it is saved under is always one harmless path element.
func FuzzFilename(f *testing.F) {
	f.Add("http://x/a/b.csv", `attachment; filename="../x"`)
	f.Add("blob:x", `attachment; filename*=UTF-8''%2e%2e%2f`)
	f.Fuzz(func(t *testing.T, u, cd string) {
		n := Filename(u, []Header{{"Content-Disposition", cd}})
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") || strings.HasPrefix(n, ".") || len(n) > 120 {
			t.Fatalf("Filename(%q, %q) = %q", u, cd, n)
		}
		Detect(map[string]string{"accept": cd}, 200, []Header{{"Content-Type", cd}, {"Content-Disposition", cd}})
	})
}
