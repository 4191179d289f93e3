//go:build !linux && !darwin && !windows

package install

import (
	"fmt"
	"os"
	"path/filepath"
)

// Other Unix systems (the BSDs): Chromium keeps the Linux layout under
// $XDG_CONFIG_HOME; the system folders vary by port, so none is assumed.
var otherConfig = map[string]string{
	Chrome:   "google-chrome",
	Chromium: "chromium",
	Edge:     "microsoft-edge",
	Brave:    "BraveSoftware/Brave-Browser",
}

func platformFor(browser string) (platform, error) {
	sub, ok := otherConfig[browser]
	if !ok {
		return platform{}, fmt.Errorf("install: unknown browser %q", browser)
	}
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return platform{}, fmt.Errorf("install: %w", err)
		}
		base = filepath.Join(home, ".config")
	}
	data := filepath.Join(base, filepath.FromSlash(sub))
	return platform{userData: data, userDir: filepath.Join(data, "NativeMessagingHosts"), userBase: data}, nil
}

func pathsEqual(a, b string) bool { return a == b }
