package install

import (
	"fmt"
	"os"
	"path/filepath"
)

// Linux: each browser reads <user data dir>/NativeMessagingHosts, the user
// data dir being under $XDG_CONFIG_HOME (default ~/.config), and one system
// folder. Brave was traced reading only Chrome's system folder, so Brave's
// system install writes there as well as to /etc/opt/brave.
var linuxBrowsers = map[string]struct {
	config    string
	system    []string
	installed []string
}{
	Chrome:   {"google-chrome", []string{"/etc/opt/chrome/native-messaging-hosts"}, []string{"/opt/google/chrome"}},
	Chromium: {"chromium", []string{"/etc/chromium/native-messaging-hosts"}, []string{"/usr/lib/chromium", "/usr/lib/chromium-browser", "/etc/chromium"}},
	Edge:     {"microsoft-edge", []string{"/etc/opt/edge/native-messaging-hosts"}, []string{"/opt/microsoft/msedge"}},
	Brave: {"BraveSoftware/Brave-Browser",
		[]string{"/etc/opt/chrome/native-messaging-hosts", "/etc/opt/brave/native-messaging-hosts"},
		[]string{"/opt/brave.com/brave"}},
}

func platformFor(browser string) (platform, error) {
	b, ok := linuxBrowsers[browser]
	if !ok {
		return platform{}, fmt.Errorf("install: unknown browser %q", browser)
	}
	base, err := configHome()
	if err != nil {
		return platform{}, err
	}
	data := filepath.Join(base, filepath.FromSlash(b.config))
	return platform{
		userData:   data,
		userDir:    filepath.Join(data, "NativeMessagingHosts"),
		systemDirs: b.system,
		installed:  b.installed,
		userBase:   data, // the browser's own folder stays
	}, nil
}

// configHome is $XDG_CONFIG_HOME when absolute, else ~/.config, as Chromium
// computes it.
func configHome() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	return filepath.Join(home, ".config"), nil
}

func pathsEqual(a, b string) bool { return a == b }
