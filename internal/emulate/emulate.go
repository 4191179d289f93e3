// Package emulate is interact emulate's model: the device and network
// conditions a tab can be put under (viewport, a device preset, colour
// scheme and reduced motion, locale, timezone, geolocation, network
// throttling, CPU slowdown), how a call changes what is in force, the CDP
// commands that put a whole state in force from scratch, and how a state
// reads in words. It knows nothing of tabs or sessions: the caller keeps
// one Settings per tab and sends Steps when the tab is (re)attached.
package emulate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Settings is what is in force on a tab. The zero value is nothing.
type Settings struct {
	Device        string       `json:"device,omitempty"` // the preset's name, when one was chosen
	Viewport      *Viewport    `json:"viewport,omitempty"`
	UserAgent     string       `json:"user_agent,omitempty"` // from the device preset
	ColorScheme   string       `json:"color_scheme,omitempty"`
	ReducedMotion bool         `json:"reduced_motion,omitempty"`
	Locale        string       `json:"locale,omitempty"`
	Timezone      string       `json:"timezone,omitempty"`
	Geolocation   *Geolocation `json:"geolocation,omitempty"`
	Network       *Network     `json:"network,omitempty"`
	CPUSlowdown   float64      `json:"cpu_slowdown,omitempty"` // 0 or 1: none
}

// Viewport is the emulated screen in CSS pixels.
type Viewport struct {
	Width       int     `json:"width"`
	Height      int     `json:"height"`
	DeviceScale float64 `json:"device_scale,omitempty"` // 0: the display's own
	Mobile      bool    `json:"mobile,omitempty"`       // mobile layout, viewport meta and touch
}

// Geolocation is what navigator.geolocation reports.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"` // metres; default 10
}

// Network is the emulated connection.
type Network struct {
	Preset       string  `json:"preset,omitempty"` // offline, slow_3g, fast_3g, fast_4g, or "" for custom
	Offline      bool    `json:"offline,omitempty"`
	LatencyMS    float64 `json:"latency_ms,omitempty"`
	DownloadKbps float64 `json:"download_kbps,omitempty"` // 0: unthrottled
	UploadKbps   float64 `json:"upload_kbps,omitempty"`
}

// Request is one interact emulate call's arguments: a field left out
// keeps what is in force; an empty string (or false) clears it.
type Request struct {
	Device        *string      `json:"device"`
	Viewport      *Viewport    `json:"viewport"`
	ColorScheme   *string      `json:"color_scheme"`
	ReducedMotion *bool        `json:"reduced_motion"`
	Locale        *string      `json:"locale"`
	Timezone      *string      `json:"timezone"`
	Geolocation   *Geolocation `json:"geolocation"`
	Network       *string      `json:"network"` // a preset, or latency_ms/download_kbps/upload_kbps
	CPUSlowdown   *float64     `json:"cpu_slowdown"`
	Reset         bool         `json:"reset"`
}

// Empty reports whether the request changes nothing.
func (r Request) Empty() bool {
	return !r.Reset && r.Device == nil && r.Viewport == nil && r.ColorScheme == nil && r.ReducedMotion == nil &&
		r.Locale == nil && r.Timezone == nil && r.Geolocation == nil && r.Network == nil && r.CPUSlowdown == nil
}

// Error is a bad argument, said so an agent can fix the call.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func bad(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// Apply returns s changed by r (reset first clears everything), or an
// *Error naming the bad argument.
func (s Settings) Apply(r Request) (Settings, error) {
	if r.Reset {
		s = Settings{}
	}
	if err := s.device(r); err != nil {
		return s, err
	}
	if err := s.media(r); err != nil {
		return s, err
	}
	if err := s.place(r); err != nil {
		return s, err
	}
	if err := s.network(r); err != nil {
		return s, err
	}
	if r.CPUSlowdown != nil {
		v := *r.CPUSlowdown
		if v < 1 || v > 20 || math.IsNaN(v) {
			return s, bad("cpu_slowdown must be between 1 (none) and 20; got %g", v)
		}
		s.CPUSlowdown = v
		if v == 1 {
			s.CPUSlowdown = 0
		}
	}
	return s, nil
}

func (s *Settings) device(r Request) error {
	if r.Device != nil {
		name := *r.Device
		if name == "" || strings.EqualFold(name, "none") {
			s.Device, s.Viewport, s.UserAgent = "", nil, ""
		} else {
			d, ok := Lookup(name)
			if !ok {
				return bad("unknown device %q; presets: %s (or give viewport)", name, strings.Join(Names(), ", "))
			}
			v := d.Viewport
			s.Device, s.Viewport, s.UserAgent = d.Name, &v, d.UserAgent
		}
	}
	if v := r.Viewport; v != nil {
		if v.Width == 0 && v.Height == 0 {
			s.Viewport, s.Device = nil, ""
			return nil
		}
		if v.Width < 1 || v.Height < 1 || v.Width > 10000 || v.Height > 10000 {
			return bad("viewport width and height must be 1 to 10000 CSS pixels; got %dx%d ({width:0, height:0} clears it)", v.Width, v.Height)
		}
		if v.DeviceScale < 0 || v.DeviceScale > 10 {
			return bad("viewport device_scale must be 0 (the display's) to 10; got %g", v.DeviceScale)
		}
		vv := *v
		s.Viewport = &vv
		if r.Device == nil && s.Device != "" {
			s.Device += " (resized)"
		}
	}
	return nil
}

func (s *Settings) media(r Request) error {
	if r.ColorScheme != nil {
		switch v := strings.ToLower(*r.ColorScheme); v {
		case "", "none":
			s.ColorScheme = ""
		case "light", "dark":
			s.ColorScheme = v
		default:
			return bad("color_scheme must be light, dark or \"\" (none); got %q", *r.ColorScheme)
		}
	}
	if r.ReducedMotion != nil {
		s.ReducedMotion = *r.ReducedMotion
	}
	return nil
}

func (s *Settings) place(r Request) error {
	if r.Locale != nil {
		v := *r.Locale
		if v != "" && !validLocale(v) {
			return bad("locale must be a BCP 47 tag such as en-US or fr-FR; got %q", v)
		}
		s.Locale = v
	}
	if r.Timezone != nil {
		v := *r.Timezone
		if v != "" {
			if _, err := time.LoadLocation(v); err != nil || v == "Local" {
				return bad("timezone must be an IANA name such as Europe/Paris or Asia/Tokyo; got %q", v)
			}
		}
		s.Timezone = v
	}
	if g := r.Geolocation; g != nil {
		if g.Latitude == 0 && g.Longitude == 0 && g.Accuracy == 0 {
			s.Geolocation = nil
			return nil
		}
		if g.Latitude < -90 || g.Latitude > 90 || g.Longitude < -180 || g.Longitude > 180 || g.Accuracy < 0 {
			return bad("geolocation needs latitude -90..90, longitude -180..180 and accuracy ≥ 0; got %g, %g, %g", g.Latitude, g.Longitude, g.Accuracy)
		}
		gg := *g
		if gg.Accuracy == 0 {
			gg.Accuracy = 10
		}
		s.Geolocation = &gg
	}
	return nil
}

// validLocale accepts what Chrome's setLocaleOverride does in practice:
// letters, digits and hyphens, a 2–3 letter language first.
func validLocale(v string) bool {
	parts := strings.Split(strings.ReplaceAll(v, "_", "-"), "-")
	if l := len(parts[0]); l < 2 || l > 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 8 {
			return false
		}
		for _, c := range p {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

func (s *Settings) network(r Request) error {
	if r.Network == nil {
		return nil
	}
	n, err := ParseNetwork(*r.Network)
	if err != nil {
		return err
	}
	s.Network = n
	return nil
}

// ParseNetwork reads a network argument: a preset (offline, slow_3g,
// fast_3g, fast_4g), none (or "": no throttling, nil), or a custom
// latency_ms/download_kbps/upload_kbps ("300/1600/750"; 0 leaves that one
// unthrottled).
func ParseNetwork(v string) (*Network, error) {
	name := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(v), " ", "_"))
	switch name {
	case "", "none", "no_throttling":
		return nil, nil
	}
	if n, ok := networkPresets[name]; ok {
		return &n, nil
	}
	parts := strings.Split(name, "/")
	if len(parts) != 3 {
		return nil, bad("network must be offline, slow_3g, fast_3g, fast_4g, none, or latency_ms/download_kbps/upload_kbps such as 300/1600/750; got %q", v)
	}
	var f [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || x < 0 || x > 1e7 || math.IsNaN(x) {
			return nil, bad("network %q: each of latency_ms/download_kbps/upload_kbps must be a number, 0 or more", v)
		}
		f[i] = x
	}
	if f == [3]float64{} {
		return nil, nil
	}
	return &Network{LatencyMS: f[0], DownloadKbps: f[1], UploadKbps: f[2]}, nil
}
