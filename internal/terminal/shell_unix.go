//go:build !windows && !darwin

package terminal

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// loginShell is $SHELL of env, else the user's shell in /etc/passwd (a
// daemon started by the service manager may have no $SHELL), else /bin/sh.
func loginShell(env []string) string {
	if s := envValue(env, "SHELL"); s != "" {
		return s
	}
	if s := passwdShell("/etc/passwd", os.Getuid()); s != "" {
		return s
	}
	return "/bin/sh"
}

// passwdShell is the shell field of uid's line in a passwd file.
func passwdShell(path string, uid int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := strconv.Itoa(uid)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) == 7 && fields[2] == want {
			return fields[6]
		}
	}
	return ""
}
