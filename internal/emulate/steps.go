package emulate

import (
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
)

// Steps are the CDP commands that put s in force on a tab whatever was in
// force before (what s leaves unset is cleared), in one cdp.sequence.
// Each step runs even when an earlier one failed (Always), so one refused
// override does not leave the rest unapplied; the caller reads each
// result. The overrides belong to the debugger session: Chrome drops them
// all when it detaches, so the caller sends Steps again after a
// re-attach.
func (s Settings) Steps() []cdp.Step {
	steps := []cdp.Step{
		s.metricsStep(),
		cdp.NewStep(emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: s.Viewport != nil && s.Viewport.Mobile, MaxTouchPoints: touchPoints(s)}),
		cdp.NewStep(emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: s.UserAgent, AcceptLanguage: s.Locale}),
		cdp.NewStep(emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{
			{Name: "prefers-color-scheme", Value: s.ColorScheme},
			{Name: "prefers-reduced-motion", Value: map[bool]string{true: "reduce"}[s.ReducedMotion]},
		}}),
		cdp.NewStep(emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: s.Locale}),
		cdp.NewStep(emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: s.Timezone}),
		s.geoStep(),
		cdp.NewStep(network.EmulateNetworkConditionsByRule, s.networkParams()),
		cdp.NewStep(network.OverrideNetworkState, s.networkState()),
		cdp.NewStep(emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: max(s.CPUSlowdown, 1)}),
	}
	for i := range steps {
		steps[i].Always = true
	}
	return steps
}

func touchPoints(s Settings) int64 {
	if s.Viewport != nil && s.Viewport.Mobile {
		return 5
	}
	return 0
}

func (s Settings) metricsStep() cdp.Step {
	v, yes := s.Viewport, true
	if v == nil {
		return cdp.NewStep(emulation.ClearDeviceMetricsOverride, struct{}{})
	}
	return cdp.NewStep(emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(v.Width), Height: int64(v.Height), DeviceScaleFactor: v.DeviceScale, Mobile: v.Mobile,
		ScreenWidth: int64(v.Width), ScreenHeight: int64(v.Height),
		// The tab's own size is left alone: Chrome does not give it back
		// when the override is cleared (measured: headless Chromium 156).
		DontSetVisibleSize: &yes})
}

func (s Settings) geoStep() cdp.Step {
	g := s.Geolocation
	if g == nil {
		return cdp.NewStep(emulation.ClearGeolocationOverride, struct{}{})
	}
	lat, lon, acc := g.Latitude, g.Longitude, g.Accuracy
	return cdp.NewStep(emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{Latitude: &lat, Longitude: &lon, Accuracy: &acc})
}

// bytesPerSecond turns kbps into the protocol's bytes/s (-1: unthrottled).
func bytesPerSecond(kbps float64) float64 {
	if kbps <= 0 {
		return -1
	}
	return kbps * 1000 / 8
}

func (s Settings) networkParams() network.EmulateNetworkConditionsByRuleParams {
	p := network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: []*network.Conditions{}}
	if n := s.Network; n != nil {
		p.MatchedNetworkConditions = append(p.MatchedNetworkConditions, &network.Conditions{Offline: n.Offline, Latency: n.LatencyMS,
			DownloadThroughput: bytesPerSecond(n.DownloadKbps), UploadThroughput: bytesPerSecond(n.UploadKbps)})
	}
	return p
}

// networkState is what navigator.onLine and navigator.connection say.
func (s Settings) networkState() network.OverrideNetworkStateParams {
	p := network.OverrideNetworkStateParams{DownloadThroughput: -1, UploadThroughput: -1}
	if n := s.Network; n != nil {
		p = network.OverrideNetworkStateParams{Offline: n.Offline, Latency: n.LatencyMS,
			DownloadThroughput: bytesPerSecond(n.DownloadKbps), UploadThroughput: bytesPerSecond(n.UploadKbps)}
	}
	return p
}

// Empty reports whether nothing is in force.
func (s Settings) Empty() bool {
	return s.Device == "" && s.Viewport == nil && s.UserAgent == "" && s.ColorScheme == "" && !s.ReducedMotion &&
		s.Locale == "" && s.Timezone == "" && s.Geolocation == nil && s.Network == nil && s.CPUSlowdown == 0
}

// Text says what is in force, for a person: "iPhone 15 (393×852 @3×,
// mobile), dark, fr-FR, Asia/Tokyo, network slow_3g (2000 ms, 400/400
// kbps), CPU 4× slower"; "" when nothing is.
func (s Settings) Text() string {
	var parts []string
	if v := s.Viewport; v != nil {
		vp := fmt.Sprintf("%d×%d", v.Width, v.Height)
		if v.DeviceScale > 0 {
			vp += fmt.Sprintf(" @%g×", v.DeviceScale)
		}
		if v.Mobile {
			vp += ", mobile"
		}
		if s.Device != "" {
			vp = s.Device + " (" + vp + ")"
		} else {
			vp = "viewport " + vp
		}
		parts = append(parts, vp)
	}
	if s.ColorScheme != "" {
		parts = append(parts, s.ColorScheme+" colour scheme")
	}
	if s.ReducedMotion {
		parts = append(parts, "reduced motion")
	}
	if s.Locale != "" {
		parts = append(parts, "locale "+s.Locale)
	}
	if s.Timezone != "" {
		parts = append(parts, "timezone "+s.Timezone)
	}
	if g := s.Geolocation; g != nil {
		parts = append(parts, fmt.Sprintf("geolocation %g,%g (±%g m)", g.Latitude, g.Longitude, g.Accuracy))
	}
	if n := s.Network; n != nil {
		parts = append(parts, "network "+n.Text())
	}
	if s.CPUSlowdown > 1 {
		parts = append(parts, fmt.Sprintf("CPU %g× slower", s.CPUSlowdown))
	}
	return strings.Join(parts, ", ")
}

// Text says what the connection is: "offline", "slow_3g (2000 ms,
// 400/400 kbps)".
func (n Network) Text() string {
	if n.Offline {
		return "offline"
	}
	kb := func(v float64) string {
		if v <= 0 {
			return "∞"
		}
		return fmt.Sprintf("%g", v)
	}
	s := fmt.Sprintf("%g ms, %s/%s kbps down/up", n.LatencyMS, kb(n.DownloadKbps), kb(n.UploadKbps))
	if n.Preset != "" {
		return n.Preset + " (" + s + ")"
	}
	return s
}

// Text says what the request changes, for the person asked to approve
// it: "clear every condition, then iPhone 15 (393×852 @3×, mobile),
// dark colour scheme; clear locale".
func (r Request) Text() string {
	var parts []string
	if r.Reset {
		parts = append(parts, "clear every condition")
	}
	set := r
	set.Reset = false
	if s, err := (Settings{}).Apply(set); err == nil && s.Text() != "" {
		parts = append(parts, "set "+s.Text())
	}
	var clears []string
	for _, f := range []struct {
		name string
		v    *string
	}{{"device", r.Device}, {"colour scheme", r.ColorScheme}, {"locale", r.Locale}, {"timezone", r.Timezone}, {"network", r.Network}} {
		if f.v != nil && (*f.v == "" || strings.EqualFold(*f.v, "none")) {
			clears = append(clears, f.name)
		}
	}
	if r.ReducedMotion != nil && !*r.ReducedMotion {
		clears = append(clears, "reduced motion")
	}
	if r.Viewport != nil && r.Viewport.Width == 0 && r.Viewport.Height == 0 {
		clears = append(clears, "viewport")
	}
	if g := r.Geolocation; g != nil && g.Latitude == 0 && g.Longitude == 0 && g.Accuracy == 0 {
		clears = append(clears, "geolocation")
	}
	if r.CPUSlowdown != nil && *r.CPUSlowdown == 1 {
		clears = append(clears, "CPU slowdown")
	}
	if len(clears) > 0 {
		parts = append(parts, "clear "+strings.Join(clears, ", "))
	}
	if len(parts) == 0 {
		return "change nothing"
	}
	return strings.Join(parts, "; ")
}
