package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/extid"
	"github.com/gasoline-mcp/gasoline/manifests"
)

// Reasons a manifest check fails; a *CheckError wraps one of them.
var (
	ErrMissing     = errors.New("install: native-host manifest not found")
	ErrInvalid     = errors.New("install: native-host manifest is not valid")
	ErrWrongPath   = errors.New("install: native-host manifest names another binary")
	ErrWrongOrigin = errors.New("install: native-host manifest does not allow the Gasoline extension")
)

// CheckError is a failed manifest check: which browser and file, why
// (Unwrap gives one of the Err* values above), and the command that fixes it.
type CheckError struct {
	Browser  string
	Manifest string // the file looked at (or expected)
	Detail   string
	Fix      string // a command line that repairs it
	Err      error
}

func (e *CheckError) Error() string {
	msg := fmt.Sprintf("%s: %s: %v", e.Browser, e.Manifest, e.Err)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg + "; fix: " + e.Fix
}

func (e *CheckError) Unwrap() error { return e.Err }

// Check verifies that browser (chrome, chromium, edge or brave; "" means
// chromium) will find a manifest that parses, names this very binary and
// allows the pinned extension origin. With userDataDir it checks that
// profile's folder; otherwise the user-level location, then the system
// ones. It returns the manifest path it checked; a failure is a
// *CheckError carrying the fixing command.
func Check(browser, userDataDir string) (manifestPath string, err error) {
	if browser == "" {
		browser = Chromium
	}
	p, err := platformFor(browser)
	if err != nil {
		return "", err
	}
	self, err := hostBinary("")
	if err != nil {
		return "", err
	}
	fix := fixCommand(self, browser, userDataDir)
	var locs []location
	if userDataDir != "" {
		abs, err := filepath.Abs(userDataDir)
		if err != nil {
			return "", err
		}
		locs = []location{profileLocation(browser, abs, p)}
	} else {
		locs = append(scopeLocations(browser, p, false), scopeLocations(browser, p, true)...)
	}
	for _, l := range locs {
		file := lookupFile(l)
		if !exists(file) {
			continue
		}
		if err := checkFile(file, self); err != nil {
			var ce *CheckError
			if errors.As(err, &ce) {
				ce.Browser, ce.Fix = browser, fix
			}
			return file, err
		}
		return file, nil
	}
	want := lookupFile(locs[0])
	return want, &CheckError{Browser: browser, Manifest: want, Err: ErrMissing, Fix: fix}
}

// lookupFile is the manifest the browser would open for l: on Windows the
// file the registry key names when it is set, else l's own file.
func lookupFile(l location) string {
	if l.regKey != "" {
		if v, err := readRegistry(l.regSystem, l.regKey); err == nil && v != "" {
			return v
		}
	}
	return l.file()
}

// checkFile verifies one manifest against the binary self.
func checkFile(file, self string) error {
	fail := func(kind error, detail string) error {
		return &CheckError{Manifest: file, Detail: detail, Err: kind}
	}
	raw, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(ErrMissing, "")
	}
	if err != nil {
		return fail(ErrInvalid, err.Error())
	}
	m, err := manifests.Parse(raw)
	if err != nil {
		return fail(ErrInvalid, err.Error())
	}
	if !samePath(m.Path, self) {
		return fail(ErrWrongPath, fmt.Sprintf("it names %s, this binary is %s", m.Path, self))
	}
	if !slices.Contains(m.AllowedOrigins, extid.Origin) {
		return fail(ErrWrongOrigin, fmt.Sprintf("allowed_origins %v lacks %s", m.AllowedOrigins, extid.Origin))
	}
	return nil
}

// samePath compares two binary paths after resolving symlinks.
func samePath(a, b string) bool {
	if !filepath.IsAbs(a) {
		return false
	}
	resolve := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return pathsEqual(resolve(a), resolve(b))
}

func fixCommand(self, browser, userDataDir string) string {
	args := []string{quoteArg(self), "install", "--browser", browser}
	if userDataDir != "" {
		args = append(args, "--user-data-dir", quoteArg(userDataDir))
	}
	return strings.Join(args, " ")
}

func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'$`\\&;|<>()*?[]{}!#~") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}
