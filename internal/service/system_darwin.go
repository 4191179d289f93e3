package service

import (
	"os/user"
	"path/filepath"

	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/kardianos/service"
)

// macOS: a launchd agent, ~/Library/LaunchAgents/com.gasoline.daemon.plist
// (where kardianos writes it), logging to the state folder.
func platformConfig(u *Unit) (platform, error) {
	u.Name = "com.gasoline.daemon"
	dir, err := state.Dir()
	if err != nil {
		return platform{}, err
	}
	if err := state.EnsureDir(dir); err != nil {
		return platform{}, err
	}
	u.LogFile = filepath.Join(state.LogDir(dir), "launchd.log")
	text, err := LaunchdPlist(*u)
	if err != nil {
		return platform{}, err
	}
	me, err := user.Current() // kardianos resolves the home folder this way
	if err != nil {
		return platform{}, err
	}
	return platform{
		label:    "launchd agent",
		unitFile: filepath.Join(me.HomeDir, "Library", "LaunchAgents", u.Name+".plist"),
		text:     text,
		options:  service.KeyValue{"UserService": true, "LaunchdConfig": text},
	}, nil
}
