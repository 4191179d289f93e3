package redact

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// pathological inputs, each built from a repeated unit, that once made a
// detector re-read the same bytes from every candidate start.
var pathological = map[string]string{
	"sk runs": "sk-", "eyJ runs": "eyJ.", "eyJ dashes": "eyJ-", "digit groups": "4111 ", "digit dashes": "411-",
	"open brace": "password={", "open quote": "password=\"", "open bracket": "token:[", "pem header": "-----BEGIN X-----",
	"pem no end": "-----BEGIN RSA PRIVATE KEY-----\n-----END ", "multipart": "form-data; name=\"password\"\n",
	"userinfo": "://a:b", "encoded values": "a=%41%42+", "markers": "[REDACTED:x]EMP-123456 ",
	"cookie pairs": "a=b; ", "iban groups": "DE89 ", "bearer": "Bearer ", "quoted keys": `"a":`,
	"escaped keys": `\"password\":\"`, "cvv words": "cvv ", "colons": ":", "dashes": "-",
	"webhooks": "hooks.slack.com/services/", "kebab names": "x-y-z-", "dotted names": "a.b.c.",
	"json objects": `{"password":"x","a":"b"},`, "open objects": `{"a":[`, "open keys": `{"a":{"b":"`,
	"truncated pairs": `[{"name":"token","value":"x"},`,
}

// TestLinearTime: every pathological input scales linearly. It compares
// 8n with n bytes (best of five), so machine speed and load matter little:
// a quadratic path takes ~64 times longer, a linear one ~8.
func TestLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing comparison")
	}
	e := testEngine(t)
	// The thread's CPU time where the OS has it, so that a loaded machine
	// (other processes taking the CPU) does not look like superlinear work.
	// best runs on the subtest's goroutine, locked to its thread.
	clock := func() time.Duration {
		if ns, ok := threadCPU(); ok {
			return time.Duration(ns)
		}
		return time.Duration(time.Now().UnixNano())
	}
	best := func(in string) time.Duration {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d := time.Hour
		for range 5 {
			t0 := clock()
			if _, _, err := e.Text(in); err != nil {
				t.Fatal(err)
			}
			d = min(d, clock()-t0)
		}
		return d
	}
	for name, unit := range pathological {
		t.Run(name, func(t *testing.T) {
			n := (32 << 10) / len(unit)
			small, large := best(strings.Repeat(unit, n)), best(strings.Repeat(unit, 8*n))
			if large > 24*small+50*time.Millisecond {
				t.Errorf("superlinear: 32 KiB in %v, 256 KiB in %v", small, large)
			}
		})
	}
}
