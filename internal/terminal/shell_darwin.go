package terminal

// loginShell is $SHELL of env, else zsh (macOS's default shell; launchd
// agents may run without $SHELL).
func loginShell(env []string) string {
	if s := envValue(env, "SHELL"); s != "" {
		return s
	}
	return "/bin/zsh"
}
