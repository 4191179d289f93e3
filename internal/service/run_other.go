//go:build !windows

package service

import "context"

// systemd and launchd stop the daemon with SIGTERM, which the caller's
// context already handles.
func runPlatform(ctx context.Context, fn func(context.Context) error) error {
	return fn(ctx)
}
