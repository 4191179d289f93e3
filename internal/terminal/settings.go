package terminal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// SettingsFile is the terminal's settings file in the state directory.
const SettingsFile = "terminal.json"

// Settings are what the terminal runs and where: terminal.json, mode 0600,
// written by the panel (term.settings.set) or by hand.
type Settings struct {
	// Command runs through the user's login shell (`$SHELL -l -c
	// COMMAND`), so it finds what the user's profile puts on PATH (e.g.
	// "claude" or "codex"). Empty: the login shell itself (`$SHELL -l`).
	Command string `json:"command"`
	// Cwd is the working directory, absolute; empty: the home directory.
	Cwd string `json:"cwd"`
}

// ErrSettingsMode: terminal.json is writable or readable by other users;
// a command file others could change is refused.
var ErrSettingsMode = errors.New("terminal: terminal.json must be mode 0600")

// maxCommand bounds the command's length.
const maxCommand = 4096

// LoadSettings reads dir/terminal.json; a missing file is the zero
// Settings. A file group or others may read or write, or one that does not
// parse or validate, is an error (the terminal then starts nothing).
func LoadSettings(dir string) (Settings, error) {
	path := filepath.Join(dir, SettingsFile)
	var s Settings
	_, err := state.ReadPrivateJSON(path, &s)
	switch {
	case errors.As(err, new(*state.TooOpenError)):
		return Settings{}, fmt.Errorf("%w: %v", ErrSettingsMode, err)
	case errors.Is(err, state.ErrSyntax):
		return Settings{}, fmt.Errorf("terminal: %v; fix it, save the settings from the panel, or remove it", err)
	case err != nil:
		return Settings{}, fmt.Errorf("terminal: %w", err)
	}
	if err := s.check(); err != nil {
		return Settings{}, fmt.Errorf("terminal: %s: %w", path, err)
	}
	return s, nil
}

// SaveSettings writes s to dir/terminal.json (0600, atomically).
func SaveSettings(dir string, s Settings) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(filepath.Join(dir, SettingsFile), append(raw, '\n'), 0o600)
}

// check validates the fields' form (not whether the directory exists: it
// may be on a disk not mounted yet; the start says so).
func (s Settings) check() error {
	switch {
	case len(s.Command) > maxCommand:
		return fmt.Errorf("the command is %d bytes, over %d", len(s.Command), maxCommand)
	case strings.ContainsAny(s.Command, "\x00\r\n"):
		return errors.New("the command must be one line")
	case s.Cwd != "" && !filepath.IsAbs(s.Cwd):
		return fmt.Errorf("the directory %q is not an absolute path", s.Cwd)
	}
	return nil
}

// resolve is what a start runs: argv (through the login shell) and the
// working directory.
func (m *Manager) resolve(s Settings) (argv []string, dir string) {
	shell := loginShell(m.cfg.Env)
	argv = []string{shell, "-l"}
	if s.Command != "" {
		argv = append(argv, "-c", s.Command)
	}
	dir = s.Cwd
	if dir == "" {
		dir = homeDir(m.cfg.Env)
	}
	return argv, dir
}

// shown is what the panel shows a start will run: the command as the user
// wrote it (or the login shell) and the directory.
func (m *Manager) shown(s Settings) (command, dir string) {
	command = s.Command
	if command == "" {
		command = loginShell(m.cfg.Env) + " -l"
	}
	_, dir = m.resolve(s)
	return command, dir
}

// settingsView is term.settings.get's answer.
func (m *Manager) settingsView(s Settings, loadErr error) map[string]any {
	out := map[string]any{
		"command": s.Command, "cwd": s.Cwd,
		"default_command": loginShell(m.cfg.Env) + " -l", "default_cwd": homeDir(m.cfg.Env),
		"file": filepath.Join(m.cfg.Dir, SettingsFile),
	}
	if loadErr != nil {
		out["error"] = loadErr.Error()
	}
	return out
}

func (m *Manager) settingsGet() (any, *protocol.Error) {
	s, err := LoadSettings(m.cfg.Dir)
	return m.settingsView(s, err), nil
}

// settingsSet validates and saves the panel's settings; they apply to the
// next process started (a running one is left alone).
func (m *Manager) settingsSet(raw json.RawMessage) (any, *protocol.Error) {
	var s Settings
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "term.settings.set takes command and cwd: %v", err)
	}
	s.Command = strings.TrimSpace(s.Command)
	s.Cwd = expandHome(strings.TrimSpace(s.Cwd), homeDir(m.cfg.Env))
	if err := s.check(); err != nil {
		return nil, protocol.Errorf(protocol.CodeBadRequest, false, "%v", err)
	}
	if s.Cwd != "" {
		if fi, err := os.Stat(s.Cwd); err != nil || !fi.IsDir() {
			return nil, protocol.Errorf(protocol.CodeBadRequest, false, "%s is not a directory on this machine; pick an existing one", s.Cwd)
		}
	}
	if err := SaveSettings(m.cfg.Dir, s); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, true, "saving the terminal settings: %v", err)
	}
	m.log.Info("terminal settings saved", "custom_command", s.Command != "", "custom_cwd", s.Cwd != "")
	return m.settingsView(s, nil), nil
}

// expandHome turns "~" and "~/x" into paths under home.
func expandHome(p, home string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	}
	return p
}

// envValue is the value of key in env ("" if unset).
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// homeDir is $HOME of env, else the user's home directory.
func homeDir(env []string) string {
	if h := envValue(env, "HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}
