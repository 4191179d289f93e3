package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasoline-mcp/gasoline/manifests"
)

// Windows: browsers find the manifest through a registry key whose default
// value is the manifest's path (HKCU for the user, HKLM for all users), so
// the file lives in Gasoline's own folder, one per browser so that removing
// one browser's registration never pulls the file from under another.
var windowsBrowsers = map[string]struct {
	data      string // under %LOCALAPPDATA%
	key       string // under Software\
	installed string // under %ProgramFiles%
}{
	Chrome:   {`Google\Chrome\User Data`, `Google\Chrome`, `Google\Chrome\Application\chrome.exe`},
	Chromium: {`Chromium\User Data`, `Chromium`, `Chromium\Application\chrome.exe`},
	Edge:     {`Microsoft\Edge\User Data`, `Microsoft\Edge`, `Microsoft\Edge\Application\msedge.exe`},
	Brave:    {`BraveSoftware\Brave-Browser\User Data`, `BraveSoftware\Brave-Browser`, `BraveSoftware\Brave-Browser\Application\brave.exe`},
}

func platformFor(browser string) (platform, error) {
	b, ok := windowsBrowsers[browser]
	if !ok {
		return platform{}, fmt.Errorf("install: unknown browser %q", browser)
	}
	local := os.Getenv("LOCALAPPDATA")
	if local == "" {
		return platform{}, errors.New("install: LOCALAPPDATA is not set")
	}
	programData := os.Getenv("ProgramData")
	if programData == "" {
		programData = `C:\ProgramData`
	}
	var installed []string
	for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"} {
		if d := os.Getenv(v); d != "" {
			installed = append(installed, filepath.Join(d, b.installed))
		}
	}
	return platform{
		userData:   filepath.Join(local, b.data),
		userDir:    filepath.Join(local, "Gasoline", "NativeMessagingHosts", browser),
		systemDirs: []string{filepath.Join(programData, "Gasoline", "NativeMessagingHosts", browser)},
		installed:  installed,
		regKey:     `Software\` + b.key + `\NativeMessagingHosts\` + manifests.HostName,
		userBase:   filepath.Join(local, "Gasoline"), // the state folder stays
	}, nil
}

func pathsEqual(a, b string) bool { return strings.EqualFold(a, b) }
