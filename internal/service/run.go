package service

import "context"

// windowsName is the Windows service name; Run needs it to answer the SCM.
const windowsName = "Gasoline"

// Run runs the daemon body fn. When the process was started by a service
// manager that expects a handshake (the Windows Service Control Manager),
// fn runs under kardianos so that start and stop requests are answered;
// everywhere else, and when run from a terminal, it is just fn(ctx).
// `gasoline-host daemon` should call it.
func Run(ctx context.Context, fn func(context.Context) error) error {
	return runPlatform(ctx, fn)
}
