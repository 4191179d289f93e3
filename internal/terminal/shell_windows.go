package terminal

// loginShell: no terminal on Windows yet (see pty_windows.go); named for
// the settings the panel shows.
func loginShell(env []string) string {
	if s := envValue(env, "COMSPEC"); s != "" {
		return s
	}
	return "cmd.exe"
}
