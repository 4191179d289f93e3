// Package version holds the build's version string. The launcher compares it
// with a running daemon's /health answer and recycles a daemon of another
// version, so every binary built from one tree must report the same value.
package version

// Version is overridden at link time:
//
//	go build -ldflags "-X github.com/gasoline-mcp/gasoline/internal/version.Version=1.2.3"
var Version = "0.1.0-dev"
