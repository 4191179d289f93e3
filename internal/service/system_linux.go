package service

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kardianos/service"
)

// Linux: a systemd --user unit, ~/.config/systemd/user/gasoline.service
// (where kardianos writes it). Other init systems are system-wide and need
// root, so they count as no manager.
func platformConfig(u *Unit) (platform, error) {
	u.Name = "gasoline"
	sys := service.ChosenSystem()
	if sys == nil || sys.String() != "linux-systemd" {
		return platform{}, fmt.Errorf("%w: systemd is not running here (a container?)", ErrNoManager)
	}
	if err := probeUserManager(); err != nil {
		return platform{}, fmt.Errorf("%w: the systemd user manager is not reachable (%v); "+
			"run this from your login session, or enable lingering: loginctl enable-linger $USER", ErrNoManager, err)
	}
	text, err := SystemdUnit(*u)
	if err != nil {
		return platform{}, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return platform{}, err
	}
	return platform{
		label:    "systemd --user",
		unitFile: filepath.Join(home, ".config", "systemd", "user", u.Name+".service"),
		text:     text,
		options:  service.KeyValue{"UserService": true, "SystemdScript": text},
	}, nil
}

// probeUserManager asks the user's systemd instance something harmless.
func probeUserManager() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "systemctl", "--user", "show-environment").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			return err
		}
		return fmt.Errorf("%v: %s", err, msg)
	}
	return nil
}
