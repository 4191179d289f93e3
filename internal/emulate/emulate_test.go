package emulate

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func req(t *testing.T, raw string) Request {
	t.Helper()
	var r Request
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestApplyMergesResetsAndClears(t *testing.T) {
	var s Settings
	s, err := s.Apply(req(t, `{"device":"iphone_15","color_scheme":"Dark","network":"slow_3g","cpu_slowdown":4}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Device != "iPhone 15" || s.Viewport.Width != 393 || !s.Viewport.Mobile || s.ColorScheme != "dark" || s.Network.Preset != "slow_3g" || s.CPUSlowdown != 4 {
		t.Fatalf("got %+v", s)
	}
	s, _ = s.Apply(req(t, `{"locale":"fr-FR"}`))
	if s.Device != "iPhone 15" || s.Locale != "fr-FR" {
		t.Errorf("a later call changed what it did not name: %+v", s)
	}
	s, _ = s.Apply(req(t, `{"viewport":{"width":500,"height":700}}`))
	if s.Device != "iPhone 15 (resized)" || s.Viewport.Width != 500 {
		t.Errorf("resize: %+v", s)
	}
	s, _ = s.Apply(req(t, `{"color_scheme":"","network":"none","cpu_slowdown":1,"viewport":{"width":0,"height":0}}`))
	if s.ColorScheme != "" || s.Network != nil || s.CPUSlowdown != 0 || s.Viewport != nil || s.Device != "" {
		t.Errorf("clears: %+v", s)
	}
	s, _ = s.Apply(req(t, `{"reset":true,"timezone":"Asia/Tokyo"}`))
	if s.Locale != "" || s.Timezone != "Asia/Tokyo" {
		t.Errorf("reset then set: %+v", s)
	}
	s, _ = s.Apply(req(t, `{"reset":true}`))
	if !s.Empty() || s.Text() != "" {
		t.Errorf("reset alone: %+v", s)
	}
}

func TestApplyRefusesBadArguments(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"device":"Nokia 3310"}`, "iPhone 15, iPhone SE"},
		{`{"viewport":{"width":-1,"height":5}}`, "1 to 10000"},
		{`{"viewport":{"width":300,"height":300,"device_scale":11}}`, "device_scale"},
		{`{"color_scheme":"sepia"}`, "light, dark"},
		{`{"locale":"not a locale"}`, "BCP 47"},
		{`{"timezone":"Mars/Olympus"}`, "IANA"},
		{`{"timezone":"Local"}`, "IANA"},
		{`{"geolocation":{"latitude":91,"longitude":0}}`, "latitude -90..90"},
		{`{"network":"warp"}`, "latency_ms/download_kbps/upload_kbps"},
		{`{"network":"1/2"}`, "latency_ms/download_kbps/upload_kbps"},
		{`{"network":"1/x/3"}`, "must be a number"},
		{`{"cpu_slowdown":0.5}`, "between 1"},
	}
	for _, tt := range tests {
		before := Settings{Locale: "de-DE"}
		after, err := before.Apply(req(t, tt.raw))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, tt.want) {
			t.Errorf("%s: err %v, want one saying %q", tt.raw, err, tt.want)
		}
		if after.Locale != "de-DE" {
			t.Errorf("%s: a refused call changed the settings", tt.raw)
		}
	}
}

func TestParseNetwork(t *testing.T) {
	n, err := ParseNetwork("300/1600/750")
	if err != nil || n.LatencyMS != 300 || n.DownloadKbps != 1600 || n.UploadKbps != 750 || n.Preset != "" {
		t.Fatalf("custom: %+v %v", n, err)
	}
	if n, _ := ParseNetwork("0/0/0"); n != nil {
		t.Errorf("all zero is no throttling, got %+v", n)
	}
	if n, _ := ParseNetwork("Slow 3G"); n == nil || n.LatencyMS != 2000 || n.DownloadKbps != 400 {
		t.Errorf("preset by its DevTools name: %+v", n)
	}
	if n, _ := ParseNetwork("offline"); n == nil || !n.Offline {
		t.Errorf("offline: %+v", n)
	}
	if got := bytesPerSecond(400); got != 50000 {
		t.Errorf("400 kbps = %g B/s, want DevTools' 50000", got)
	}
}

func TestStepsPutAWholeStateInForce(t *testing.T) {
	methods := func(s Settings) string {
		var m []string
		for _, st := range s.Steps() {
			if !st.Always {
				t.Errorf("%s is not Always: one refused override would skip the rest", st.Method)
			}
			m = append(m, st.Method)
		}
		return strings.Join(m, " ")
	}
	empty := methods(Settings{})
	for _, want := range []string{"Emulation.clearDeviceMetricsOverride", "Emulation.clearGeolocationOverride", "Emulation.setCPUThrottlingRate", "Network.emulateNetworkConditionsByRule"} {
		if !strings.Contains(empty, want) {
			t.Errorf("nothing in force still sends %s (a clear): %s", want, empty)
		}
	}
	s, _ := Settings{}.Apply(Request{Device: ptr("Pixel 8"), Geolocation: &Geolocation{Latitude: 1, Longitude: 2}})
	full := methods(s)
	if !strings.Contains(full, "Emulation.setDeviceMetricsOverride") || !strings.Contains(full, "Emulation.setGeolocationOverride") {
		t.Errorf("set: %s", full)
	}
	raw, _ := json.Marshal(s.Steps()[0].Params)
	if !strings.Contains(string(raw), `"dontSetVisibleSize":true`) || !strings.Contains(string(raw), `"width":412`) {
		t.Errorf("metrics params %s", raw)
	}
	if s.Geolocation.Accuracy != 10 {
		t.Errorf("default accuracy %g", s.Geolocation.Accuracy)
	}
}

func ptr[T any](v T) *T { return &v }

func TestTexts(t *testing.T) {
	s, _ := Settings{}.Apply(req(t, `{"device":"iPhone SE","color_scheme":"dark","reduced_motion":true,"network":"300/1600/0","cpu_slowdown":4}`))
	want := "iPhone SE (375×667 @2×, mobile), dark colour scheme, reduced motion, network 300 ms, 1600/∞ kbps down/up, CPU 4× slower"
	if got := s.Text(); got != want {
		t.Errorf("Text\n got %q\nwant %q", got, want)
	}
	r := req(t, `{"reset":true,"device":"Laptop","locale":"","reduced_motion":false}`)
	if got, want := r.Text(), "clear every condition; set Laptop (1366×768 @1×); clear locale, reduced motion"; got != want {
		t.Errorf("Request.Text\n got %q\nwant %q", got, want)
	}
	if !(Request{}).Empty() || req(t, `{"reset":true}`).Empty() {
		t.Error("Empty")
	}
}
