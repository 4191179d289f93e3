package redact

import (
	"errors"
	"strings"
	"testing"
)

func TestSelfTestPassesTheDefaultPolicy(t *testing.T) {
	e, err := New(DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	if err := SelfTest(func(s string) (string, error) { out, _, err := e.Text(s); return out, err }); err != nil {
		t.Fatal(err)
	}
}

func TestSelfTestCatchesAGatewayThatMasksNothing(t *testing.T) {
	if err := SelfTest(func(s string) (string, error) { return s, nil }); !errors.Is(err, ErrSelfTest) {
		t.Fatalf("identity gateway: %v, want ErrSelfTest", err)
	}
	// Masking only some classes is not enough.
	partial := func(s string) (string, error) { return strings.Replace(s, "token ", "[REDACTED:x] ", 1), nil }
	if err := SelfTest(partial); !errors.Is(err, ErrSelfTest) {
		t.Fatalf("partial gateway: %v, want ErrSelfTest", err)
	}
	if err := SelfTest(func(string) (string, error) { return "", ErrBlocked }); err == nil || !errors.Is(err, ErrBlocked) {
		t.Fatalf("refusing gateway: %v", err)
	}
}
