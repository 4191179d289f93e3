package service

import (
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/kardianos/service"
)

// Windows: a service in the Service Control Manager (installing it needs an
// elevated prompt). It runs as LocalSystem, so the installing user's state
// folder is passed in GASOLINE_HOME for the daemon and its clients to agree.
func platformConfig(u *Unit) (platform, error) {
	u.Name = windowsName
	dir, err := state.Dir()
	if err != nil {
		return platform{}, err
	}
	if u.Env == nil {
		u.Env = map[string]string{}
	}
	u.Env["GASOLINE_HOME"] = dir
	return platform{
		label: "Windows service manager",
		options: service.KeyValue{
			"StartType":              "automatic",
			"OnFailure":              "restart",
			"OnFailureDelayDuration": "5s",
			"OnFailureResetPeriod":   60,
		},
	}, nil
}
