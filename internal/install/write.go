package install

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/manifests"
)

// Origins are the extension origins the manifests allow: every ID the
// distributed extension can be installed under. Today that is the one ID
// pinned by the key in extension/manifest.json.
func Origins() []string { return []string{extid.Origin} }

// Install writes the manifest for each browser opts selects and reports
// each file (and registry key) on out, one line each. Re-running it with
// the same options changes nothing and says "unchanged".
func Install(opts Options, out io.Writer) error {
	if err := opts.check(); err != nil {
		return fmt.Errorf("install: %w", err)
	}
	bin, err := hostBinary(opts.Path)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	doc, err := manifests.Render(bin, Origins())
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	locs, err := locations(opts, true)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	var errs []error
	for _, l := range locs {
		if err := installOne(l, doc, out); err != nil {
			errs = append(errs, fmt.Errorf("install: %s: %w", l.who(), err))
		}
	}
	if opts.UserDataDir != "" && len(locs) == 1 && locs[0].browsers[0] == Brave {
		fmt.Fprintln(out, "note: Brave reads its default profile folder even with another --user-data-dir; run `install --browser brave` too")
	}
	return errors.Join(errs...)
}

func installOne(l location, doc []byte, out io.Writer) error {
	file := l.file()
	old, err := os.ReadFile(file)
	switch {
	case err == nil && bytes.Equal(old, doc):
		fmt.Fprintf(out, "%s: unchanged %s\n", l.who(), file)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	default:
		if err := os.MkdirAll(l.dir, 0o755); err != nil {
			return err
		}
		if err := state.WriteFileAtomic(file, doc, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: wrote %s\n", l.who(), file)
	}
	if l.regKey == "" {
		return nil
	}
	changed, err := setRegistry(l.regSystem, l.regKey, file)
	if err != nil {
		return fmt.Errorf("registering %s: %w", regName(l), err)
	}
	verb := "unchanged"
	if changed {
		verb = "registered"
	}
	fmt.Fprintf(out, "%s: %s %s = %s\n", l.who(), verb, regName(l), file)
	return nil
}

// Uninstall removes what Install wrote for the browsers opts selects (all
// four when none is named) and nothing else: the manifest file, its folder
// when that is left empty, and on Windows the registry key when it still
// names that file.
func Uninstall(opts Options, out io.Writer) error {
	if err := opts.check(); err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	locs, err := locations(opts, false)
	if err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	var errs []error
	for _, l := range locs {
		if err := uninstallOne(l, out); err != nil {
			errs = append(errs, fmt.Errorf("uninstall: %s: %w", l.who(), err))
		}
	}
	return errors.Join(errs...)
}

func uninstallOne(l location, out io.Writer) error {
	if l.regKey != "" {
		removed, current, err := deleteRegistry(l.regSystem, l.regKey, l.file())
		switch {
		case err != nil:
			return fmt.Errorf("unregistering %s: %w", regName(l), err)
		case removed:
			fmt.Fprintf(out, "%s: removed %s\n", l.who(), regName(l))
		case current != "":
			fmt.Fprintf(out, "%s: left %s (it names %s, not ours)\n", l.who(), regName(l), current)
		}
	}
	file := l.file()
	err := os.Remove(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(out, "%s: nothing at %s\n", l.who(), file)
		return nil
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "%s: removed %s\n", l.who(), file)
	// Folders install may have created go too while nothing else is in them
	// (Remove refuses a non-empty folder), up to l.keep.
	for dir := l.dir; isBelow(dir, l.keep) && os.Remove(dir) == nil; dir = filepath.Dir(dir) {
		fmt.Fprintf(out, "%s: removed empty folder %s\n", l.who(), dir)
	}
	return nil
}

// isBelow reports whether dir is strictly inside parent.
func isBelow(dir, parent string) bool {
	if parent == "" {
		return false
	}
	rel, err := filepath.Rel(parent, dir)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func regName(l location) string {
	root := `HKCU\`
	if l.regSystem {
		root = `HKLM\`
	}
	return root + l.regKey
}

// hostBinary returns the absolute path the manifest names: path if given,
// else the running executable, with symlinks resolved so the manifest keeps
// working when a link is moved. The file must exist.
func hostBinary(path string) (string, error) {
	if path == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding this executable: %w", err)
		}
		path = exe
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("host binary: %w", err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("host binary %s is a folder", abs)
	}
	return abs, nil
}
