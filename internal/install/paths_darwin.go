package install

import (
	"fmt"
	"os"
	"path/filepath"
)

// macOS: each browser reads <user data dir>/NativeMessagingHosts under
// ~/Library/Application Support, and a folder under /Library for all users.
// Brave's system install also writes Chrome's system folder (on Linux Brave
// was traced reading only Chrome's; its macOS build is assumed to match).
var darwinBrowsers = map[string]struct {
	data      string
	system    []string
	installed string
}{
	Chrome:   {"Google/Chrome", []string{"/Library/Google/Chrome/NativeMessagingHosts"}, "/Applications/Google Chrome.app"},
	Chromium: {"Chromium", []string{"/Library/Application Support/Chromium/NativeMessagingHosts"}, "/Applications/Chromium.app"},
	Edge:     {"Microsoft Edge", []string{"/Library/Microsoft/Edge/NativeMessagingHosts"}, "/Applications/Microsoft Edge.app"},
	Brave: {"BraveSoftware/Brave-Browser", []string{
		"/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
		"/Library/Google/Chrome/NativeMessagingHosts",
	}, "/Applications/Brave Browser.app"},
}

func platformFor(browser string) (platform, error) {
	b, ok := darwinBrowsers[browser]
	if !ok {
		return platform{}, fmt.Errorf("install: unknown browser %q", browser)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return platform{}, fmt.Errorf("install: %w", err)
	}
	base := filepath.Join(home, "Library", "Application Support")
	data := filepath.Join(base, filepath.FromSlash(b.data))
	return platform{
		userData:   data,
		userDir:    filepath.Join(data, "NativeMessagingHosts"),
		systemDirs: b.system,
		installed:  []string{b.installed},
		userBase:   data, // the browser's own folder stays
	}, nil
}

func pathsEqual(a, b string) bool { return a == b }
