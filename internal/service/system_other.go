//go:build !linux && !darwin && !windows

package service

import "fmt"

// Elsewhere kardianos only offers system-wide init scripts; Gasoline does
// not install those.
func platformConfig(u *Unit) (platform, error) {
	u.Name = "gasoline"
	return platform{}, fmt.Errorf("%w: no user-level service manager is supported on this OS", ErrNoManager)
}
