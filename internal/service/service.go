// Package service installs and controls the OS service that runs
// `gasoline-host daemon` at login, through github.com/kardianos/service:
// a systemd --user unit on Linux, a launchd agent on macOS, a Windows
// service on Windows. The service is a convenience: gasoline-host starts
// the daemon on demand whenever Chrome or an MCP client needs it, so a
// machine with no service manager (a container) loses nothing but autostart.
package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kardianos/service"
)

// ErrNoManager means this machine has no service manager Gasoline can use
// (for example a container without systemd).
var ErrNoManager = errors.New("service: no service manager available")

// EnvPassed lists the environment variables copied into the service
// definition when they are set where `service install` runs.
var EnvPassed = []string{"GASOLINE_HOME", "GASOLINE_PORT", "GASOLINE_POLICY"}

const description = "Gasoline daemon: lets AI coding agents see and drive your browser, with your approval"

const onDemand = "the daemon still starts on demand when Chrome or an MCP client needs it; to run it by hand: gasoline-host daemon"

// platform is what the OS-specific files decide (see system_*.go).
type platform struct {
	label    string           // the manager, for people: "systemd --user"
	unitFile string           // the file the definition is written to, "" when none
	text     string           // that file's expected content
	options  service.KeyValue // kardianos options
}

// Seams for tests: the manager lookup and the kardianos constructor.
var (
	platformFor = platformConfig
	newService  = service.New
)

// Main runs `gasoline-host service install|uninstall|start|stop|status`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: gasoline-host service install|uninstall|start|stop|status")
		return errors.New("service: want exactly one of install, uninstall, start, stop, status")
	}
	cmd := args[0]
	switch cmd {
	case "install", "uninstall", "start", "stop", "status":
	default:
		return fmt.Errorf("service: unknown command %q (want install, uninstall, start, stop or status)", cmd)
	}
	u, err := defaultUnit()
	if err != nil {
		return fmt.Errorf("service %s: %w", cmd, err)
	}
	p, err := platformFor(&u)
	if errors.Is(err, ErrNoManager) {
		switch cmd {
		case "stop":
			fmt.Fprintf(stdout, "service: no service manager here (%v)\n", err)
			return stopGasoline(ctx, stdout)
		case "start":
			return startOnDemand(ctx, stdout)
		case "status":
			fmt.Fprintf(stdout, "gasoline service: unavailable: %v\n%s\n", err, onDemand)
			return nil
		case "uninstall": // nothing can be installed without a manager
			fmt.Fprintf(stdout, "service: nothing to remove (%v)\n", err)
			return nil
		}
		return fmt.Errorf("service %s: %w (%s)", cmd, err, onDemand)
	}
	if err != nil {
		return fmt.Errorf("service %s: %w", cmd, err)
	}
	svc, err := newService(idle{}, &service.Config{
		Name:        u.Name,
		DisplayName: "Gasoline",
		Description: description,
		Executable:  u.Executable,
		Arguments:   u.Arguments,
		EnvVars:     u.Env,
		Option:      p.options,
	})
	if err != nil {
		return fmt.Errorf("service %s: %w", cmd, err)
	}
	c := control{svc: svc, p: p, name: u.Name, out: stdout}
	switch cmd {
	case "start": // an explicit start ends a deliberate stop (ondemand.go)
		if _, err := clearStop(); err != nil {
			return err
		}
	case "stop":
		if err := c.do(cmd); err != nil {
			return err
		}
		return stopGasoline(ctx, stdout)
	}
	return c.do(cmd)
}

// defaultUnit describes `gasoline-host daemon` for this binary.
func defaultUnit() (Unit, error) {
	exe, err := os.Executable()
	if err != nil {
		return Unit{}, fmt.Errorf("finding this executable: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	env := map[string]string{}
	for _, k := range EnvPassed {
		if v := os.Getenv(k); v != "" {
			if k == "GASOLINE_HOME" || k == "GASOLINE_POLICY" {
				if abs, err := filepath.Abs(v); err == nil {
					v = abs
				}
			}
			env[k] = v
		}
	}
	return Unit{Description: description, Executable: exe, Arguments: []string{"daemon"}, Env: env}, nil
}

type control struct {
	svc  service.Service
	p    platform
	name string
	out  io.Writer
}

func (c control) do(cmd string) error {
	switch cmd {
	case "install":
		return c.install()
	case "uninstall":
		return c.uninstall()
	case "start":
		return c.act("start", "started", c.svc.Start)
	case "stop":
		return c.act("stop", "stopped", c.svc.Stop)
	}
	return c.status()
}

func (c control) where() string {
	if c.p.unitFile != "" {
		return fmt.Sprintf("%s (%s, %s)", c.name, c.p.label, c.p.unitFile)
	}
	return fmt.Sprintf("%s (%s)", c.name, c.p.label)
}

// installed reports whether the manager knows the service.
func (c control) installed() (running bool, ok bool, err error) {
	st, err := c.svc.Status()
	if errors.Is(err, service.ErrNotInstalled) {
		return false, false, nil
	}
	if err != nil && st == service.StatusUnknown && c.p.unitFile != "" {
		// e.g. systemd "failed": the definition is there all the same.
		if _, statErr := os.Stat(c.p.unitFile); statErr == nil {
			return false, true, nil
		}
	}
	return st == service.StatusRunning, err == nil || st != service.StatusUnknown, err
}

// install writes the definition and enables it; re-running with the same
// definition changes nothing, a different one (moved binary, new
// environment) replaces it.
func (c control) install() error {
	_, ok, _ := c.installed()
	if ok && c.p.unitFile != "" {
		if cur, err := os.ReadFile(c.p.unitFile); err == nil && bytes.Equal(cur, []byte(c.p.text)) {
			fmt.Fprintf(c.out, "service: unchanged %s\n", c.where())
			return nil
		}
	}
	verb := "installed"
	if ok {
		_ = c.svc.Stop() // it may not be running
		if err := c.svc.Uninstall(); err != nil {
			return fmt.Errorf("service install: replacing the old definition: %w", err)
		}
		verb = "reinstalled"
	}
	if err := c.svc.Install(); err != nil {
		return fmt.Errorf("service install: %w", err)
	}
	fmt.Fprintf(c.out, "service: %s %s\n", verb, c.where())
	return nil
}

func (c control) uninstall() error {
	if _, ok, _ := c.installed(); !ok {
		fmt.Fprintf(c.out, "service: not installed %s\n", c.where())
		return nil
	}
	_ = c.svc.Stop() // it may not be running
	if err := c.svc.Uninstall(); err != nil {
		return fmt.Errorf("service uninstall: %w", err)
	}
	fmt.Fprintf(c.out, "service: removed %s\n", c.where())
	return nil
}

func (c control) act(name, done string, f func() error) error {
	if _, ok, _ := c.installed(); !ok {
		return fmt.Errorf("service %s: not installed; run: gasoline-host service install", name)
	}
	if err := f(); err != nil {
		return fmt.Errorf("service %s: %w", name, err)
	}
	fmt.Fprintf(c.out, "service: %s %s\n", done, c.where())
	return nil
}

func (c control) status() error {
	st, err := c.svc.Status()
	switch {
	case errors.Is(err, service.ErrNotInstalled):
		fmt.Fprintf(c.out, "gasoline service: not installed %s\n", c.where())
	case st == service.StatusRunning:
		fmt.Fprintf(c.out, "gasoline service: running %s\n", c.where())
	case st == service.StatusStopped:
		fmt.Fprintf(c.out, "gasoline service: stopped %s\n", c.where())
	case err != nil:
		return fmt.Errorf("service status: %s: %w", c.where(), err)
	default:
		fmt.Fprintf(c.out, "gasoline service: unknown %s\n", c.where())
	}
	return nil
}

// idle is the kardianos program for control commands, which never run it.
type idle struct{}

func (idle) Start(service.Service) error { return nil }
func (idle) Stop(service.Service) error  { return nil }
