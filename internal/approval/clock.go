package approval

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Clock is the engine's time source: Now for every expiry decision and
// NewTimer for every wait. Tests inject a fake one or run in a
// testing/synctest bubble with SystemClock.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer the engine uses.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer.
func (SystemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

type sysTimer struct{ t *time.Timer }

func (s sysTimer) C() <-chan time.Time { return s.t.C }
func (s sysTimer) Stop() bool          { return s.t.Stop() }

// newID returns prefix + 128 random bits in hex: unguessable, so an id
// seen by one client cannot be derived from another.
func newID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("approval: crypto/rand failed: " + err.Error())
	}
	return prefix + hex.EncodeToString(b[:])
}
