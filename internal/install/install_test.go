package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/manifests"
)

// sandbox points HOME and XDG_CONFIG_HOME at a fresh temp dir and returns it.
func sandbox(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("these tests drive the Unix layouts; Windows writes the registry")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	return home
}

// fakeHost makes an executable file to name in manifests.
func fakeHost(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gasoline-host")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func run(t *testing.T, uninstall bool, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Main(context.Background(), uninstall, args, &out, &errOut)
	return out.String() + errOut.String(), err
}

// tree lists every path under root, relative and slash-separated.
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel != "." {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func readManifest(t *testing.T, file string) manifests.Manifest {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m manifests.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s is not JSON: %v\n%s", file, err, raw)
	}
	return m
}

func TestUserDataDirRoundTrip(t *testing.T) {
	home := sandbox(t)
	bin := fakeHost(t)
	udd := filepath.Join(home, "profile")
	file := filepath.Join(udd, "NativeMessagingHosts", "com.gasoline.host.json")

	out, err := run(t, false, "--browser", "chromium", "--user-data-dir", udd, "--path", bin)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if want := "chromium: wrote " + file + "\n"; out != want {
		t.Errorf("install output:\n got %q\nwant %q", out, want)
	}
	m := readManifest(t, file)
	want := manifests.Manifest{Name: "com.gasoline.host", Description: manifests.Description,
		Path: bin, Type: "stdio", AllowedOrigins: []string{extid.Origin}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("manifest:\n got %+v\nwant %+v", m, want)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode: got %v, want 0644", fi.Mode().Perm())
	}
	if got, want := tree(t, home), []string{"profile", "profile/NativeMessagingHosts", "profile/NativeMessagingHosts/com.gasoline.host.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files after install:\n got %q\nwant %q", got, want)
	}

	// Idempotent: the same command again changes nothing and says so.
	before, _ := os.ReadFile(file)
	out, err = run(t, false, "--user-data-dir", udd, "--path", bin) // chromium is the default
	if err != nil || out != "chromium: unchanged "+file+"\n" {
		t.Errorf("second install: err %v, output %q", err, out)
	}
	after, _ := os.ReadFile(file)
	if !bytes.Equal(before, after) {
		t.Error("second install rewrote the manifest differently")
	}

	out, err = run(t, true, "--user-data-dir", udd)
	if err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if got, want := tree(t, home), []string{"profile"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files after uninstall:\n got %q\nwant %q (output %q)", got, want, out)
	}
	// Uninstalling again is harmless.
	if out, err := run(t, true, "--user-data-dir", udd); err != nil || !strings.Contains(out, "nothing at") {
		t.Errorf("second uninstall: err %v, output %q", err, out)
	}
}

func TestInstallFoundBrowsers(t *testing.T) {
	home := sandbox(t)
	bin := fakeHost(t)
	for _, d := range []string{".config/chromium", ".config/BraveSoftware/Brave-Browser"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	created := tree(t, home)

	out, err := run(t, false, "--path", bin)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	wantFiles := []string{
		filepath.Join(home, ".config/chromium/NativeMessagingHosts/com.gasoline.host.json"),
		filepath.Join(home, ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.gasoline.host.json"),
	}
	for _, f := range wantFiles {
		if m := readManifest(t, f); m.Path != bin {
			t.Errorf("%s names %q, want %q", f, m.Path, bin)
		}
		if !strings.Contains(out, "wrote "+f) {
			t.Errorf("output does not report %s:\n%s", f, out)
		}
	}
	if exists(filepath.Join(home, ".config/google-chrome")) || exists(filepath.Join(home, ".config/microsoft-edge")) {
		t.Errorf("install created folders for browsers that are not there:\n%q", tree(t, home))
	}

	out, err = run(t, true)
	if err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	if got := tree(t, home); !reflect.DeepEqual(got, created) {
		t.Errorf("after uninstall:\n got %q\nwant %q", got, created)
	}
}

func TestInstallAllWritesEveryBrowser(t *testing.T) {
	home := sandbox(t)
	bin := fakeHost(t)
	out, err := run(t, false, "--browser", "all", "--path", bin)
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, dir := range []string{"google-chrome", "chromium", "microsoft-edge", "BraveSoftware/Brave-Browser"} {
		f := filepath.Join(home, ".config", dir, "NativeMessagingHosts", "com.gasoline.host.json")
		readManifest(t, f)
	}
	if out, err := run(t, true, "--browser", "all"); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	// Install created the browsers' folders (all = found or not); uninstall
	// removes what it wrote and leaves the browsers' own folders, empty.
	for _, p := range tree(t, home) {
		if strings.Contains(p, "NativeMessagingHosts") {
			t.Errorf("uninstall left %s", p)
		}
	}
}

func TestInstallNoBrowserFound(t *testing.T) {
	sandbox(t)
	bin := fakeHost(t)
	out, err := run(t, false, "--path", bin)
	if err == nil || !strings.Contains(err.Error(), "--browser") {
		t.Errorf("install with no browser: got err %v (output %q), want one naming --browser", err, out)
	}
}

func TestBadArguments(t *testing.T) {
	sandbox(t)
	bin := fakeHost(t)
	for name, args := range map[string][]string{
		"unknown browser":        {"--browser", "firefox"},
		"two browsers, one dir":  {"--browser", "chrome,edge", "--user-data-dir", t.TempDir()},
		"all with one dir":       {"--browser", "all", "--user-data-dir", t.TempDir()},
		"system with dir":        {"--system", "--user-data-dir", t.TempDir()},
		"missing binary":         {"--browser", "chrome", "--path", filepath.Join(t.TempDir(), "nope")},
		"stray argument":         {"chrome"},
		"unknown flag":           {"--browsers", "chrome"},
		"binary is a directory":  {"--browser", "chrome", "--path", t.TempDir()},
		"empty browser in list:": {"--browser", "chrome,,edge", "--path", bin},
	} {
		t.Run(name, func(t *testing.T) {
			if out, err := run(t, false, args...); err == nil {
				t.Errorf("install %q: got nil error, output %q", args, out)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	home := sandbox(t)
	udd := filepath.Join(home, "profile")
	file := filepath.Join(udd, "NativeMessagingHosts", "com.gasoline.host.json")
	self, err := hostBinary("")
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, doc string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	render := func(path string, origins ...string) string {
		raw, err := manifests.Render(path, origins)
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}

	tests := []struct {
		name string
		doc  string // "" = no file
		want error
	}{
		{"missing", "", ErrMissing},
		{"invalid JSON", `{"name": "com.gasoline.host",`, ErrInvalid},
		{"wrong path", render(fakeHost(t), extid.Origin), ErrWrongPath},
		{"wrong origin", render(self, "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"), ErrWrongOrigin},
		{"ok", render(self, extid.Origin), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(udd)
			if tc.doc != "" {
				write(t, tc.doc)
			}
			got, err := Check("chromium", udd)
			if got != file {
				t.Errorf("manifest path: got %q, want %q", got, file)
			}
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Check: got %v, want %v", err, tc.want)
			}
			if err == nil {
				return
			}
			var ce *CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *CheckError", err)
			}
			wantFix := self + " install --browser chromium --user-data-dir " + udd
			if ce.Fix != wantFix || !strings.Contains(err.Error(), wantFix) {
				t.Errorf("fix: got %q, want %q (error %q)", ce.Fix, wantFix, err)
			}
		})
	}
}

// What install writes is what Check accepts.
func TestInstallThenCheck(t *testing.T) {
	home := sandbox(t)
	if err := os.MkdirAll(filepath.Join(home, ".config", "google-chrome"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, false); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	got, err := Check("chrome", "")
	if err != nil {
		t.Fatalf("Check after install: %v", err)
	}
	if want := filepath.Join(home, ".config/google-chrome/NativeMessagingHosts/com.gasoline.host.json"); got != want {
		t.Errorf("Check path: got %q, want %q", got, want)
	}
	if _, err := Check("edge", ""); !errors.Is(err, ErrMissing) {
		t.Errorf("Check edge (not installed): got %v, want ErrMissing", err)
	}
}
