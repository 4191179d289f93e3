package main

import (
	"errors"

	"github.com/gasoline-mcp/gasoline/internal/doctor"
)

var errUsage = errors.New("bad usage; see gasoline-host help")

// exitCode maps an error to the process status: 2 for usage errors, 1 for
// everything else (doctor reports failed checks as 1 too).
func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return 2
	}
	var f *doctor.FailedError
	if errors.As(err, &f) {
		return 1
	}
	return 1
}
