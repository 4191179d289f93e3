package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasoline-mcp/gasoline/manifests"
)

// Browser names accepted by --browser.
const (
	Chrome   = "chrome"
	Chromium = "chromium"
	Edge     = "edge"
	Brave    = "brave"
)

// Browsers lists every supported browser, in the order output uses.
var Browsers = []string{Chrome, Chromium, Edge, Brave}

func isBrowser(name string) bool {
	for _, b := range Browsers {
		if b == name {
			return true
		}
	}
	return false
}

// platform is where one browser keeps things on this OS (see paths_*.go).
type platform struct {
	userData   string   // the browser's default user data folder
	userDir    string   // folder for the user-level manifest
	systemDirs []string // folders for machine-wide manifests
	installed  []string // paths whose presence shows the browser is installed
	regKey     string   // Windows: key (under HKCU or HKLM) naming the manifest
	userBase   string   // folder above userDir that uninstall never removes
}

// location is one manifest file, and on Windows the registry key that
// points the browser at it.
type location struct {
	browsers  []string
	dir       string
	regKey    string // "" where the browser finds the file by its folder
	regSystem bool   // HKLM rather than HKCU
	// keep is the folder where uninstall stops removing emptied folders:
	// it removes dir and its parents below keep when they are left empty.
	keep string
}

func (l location) file() string { return filepath.Join(l.dir, manifests.FileName) }

func (l location) who() string { return strings.Join(l.browsers, ", ") }

// locations resolves opts into the manifest files to write or remove,
// merging browsers that read the same file. forInstall picks the browsers
// found on this machine when none are named.
func locations(opts Options, forInstall bool) ([]location, error) {
	if opts.UserDataDir != "" {
		b := Chromium
		if len(opts.Browsers) == 1 {
			b = opts.Browsers[0]
		}
		p, err := platformFor(b)
		if err != nil {
			return nil, err
		}
		return []location{profileLocation(b, opts.UserDataDir, p)}, nil
	}
	names := opts.Browsers
	if len(names) == 0 && !forInstall {
		names = Browsers
	}
	if len(names) == 0 {
		found, looked := foundBrowsers(opts.System)
		if len(found) == 0 {
			return nil, fmt.Errorf("no supported browser found (looked for %s); name one with --browser %s or --browser all",
				strings.Join(looked, ", "), strings.Join(Browsers, "|"))
		}
		names = found
	}
	var out []location
	index := map[string]int{}
	for _, b := range names {
		p, err := platformFor(b)
		if err != nil {
			return nil, err
		}
		for _, l := range scopeLocations(b, p, opts.System) {
			if i, ok := index[l.file()+"\x00"+l.regKey]; ok {
				out[i].browsers = append(out[i].browsers, b)
				continue
			}
			index[l.file()+"\x00"+l.regKey] = len(out)
			out = append(out, l)
		}
	}
	return out, nil
}

func scopeLocations(b string, p platform, system bool) []location {
	if !system {
		return []location{{browsers: []string{b}, dir: p.userDir, regKey: p.regKey, keep: p.userBase}}
	}
	var out []location
	for _, d := range p.systemDirs {
		out = append(out, location{browsers: []string{b}, dir: d, regKey: p.regKey, regSystem: true, keep: filepath.Dir(d)})
	}
	return out
}

// profileLocation is DIR/NativeMessagingHosts, which Chromium reads for a
// profile started with --user-data-dir=DIR on Linux and macOS. Windows has
// no per-profile folder: the HKCU key is pointed at the file instead.
func profileLocation(b, userDataDir string, p platform) location {
	return location{
		browsers: []string{b},
		dir:      filepath.Join(userDataDir, "NativeMessagingHosts"),
		regKey:   p.regKey,
		keep:     userDataDir,
	}
}

// foundBrowsers lists the browsers present: for the user scope those whose
// user data folder exists, for the system scope those installed.
func foundBrowsers(system bool) (found, looked []string) {
	for _, b := range Browsers {
		p, err := platformFor(b)
		if err != nil {
			continue
		}
		probes := []string{p.userData}
		if system {
			probes = p.installed
		}
		for _, path := range probes {
			if path == "" {
				continue
			}
			looked = append(looked, path)
			if _, err := os.Stat(path); err == nil {
				found = append(found, b)
				break
			}
		}
	}
	return found, looked
}

// exists reports whether path exists; other errors count as present so
// that a permission problem surfaces where the file is used.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// Found lists the browsers this user has (their user data folder exists).
func Found() []string {
	found, _ := foundBrowsers(false)
	return found
}
