package emulate

import (
	"slices"
	"strings"
)

// Device is a preset: a current phone, tablet or desktop as DevTools'
// device toolbar describes it.
type Device struct {
	Name      string
	Viewport  Viewport
	UserAgent string
}

const (
	iosUA     = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	ipadUA    = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	pixelUA   = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
	galaxyUA  = "Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
	desktopUA = "" // the browser's own
)

// devices are the presets, in the order describe_capabilities lists them.
var devices = []Device{
	{"iPhone 15", Viewport{393, 852, 3, true}, iosUA},
	{"iPhone SE", Viewport{375, 667, 2, true}, iosUA},
	{"Pixel 8", Viewport{412, 915, 2.625, true}, pixelUA},
	{"Galaxy S24", Viewport{360, 780, 3, true}, galaxyUA},
	{"iPad Air", Viewport{820, 1180, 2, true}, ipadUA},
	{"iPad Mini", Viewport{768, 1024, 2, true}, ipadUA},
	{"Desktop 1080p", Viewport{1920, 1080, 1, false}, desktopUA},
	{"Laptop", Viewport{1366, 768, 1, false}, desktopUA},
}

// Names lists the presets.
func Names() []string {
	out := make([]string, len(devices))
	for i, d := range devices {
		out[i] = d.Name
	}
	return out
}

// Lookup finds a preset by name, ignoring case, spaces, hyphens and
// underscores ("iphone_15" is "iPhone 15").
func Lookup(name string) (Device, bool) {
	key := fold(name)
	i := slices.IndexFunc(devices, func(d Device) bool { return fold(d.Name) == key })
	if i < 0 {
		return Device{}, false
	}
	return devices[i], true
}

func fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_':
			return -1
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// networkPresets are DevTools' throttling presets (its SDK's
// NetworkManager: the raw figures scaled by its adjustment factors).
var networkPresets = map[string]Network{
	"offline": {Preset: "offline", Offline: true},
	"slow_3g": {Preset: "slow_3g", LatencyMS: 2000, DownloadKbps: 400, UploadKbps: 400},
	"fast_3g": {Preset: "fast_3g", LatencyMS: 562.5, DownloadKbps: 1440, UploadKbps: 675},
	"fast_4g": {Preset: "fast_4g", LatencyMS: 165, DownloadKbps: 8100, UploadKbps: 1350},
}
