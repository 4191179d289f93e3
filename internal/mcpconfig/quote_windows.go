package mcpconfig

import "strings"

// shellQuote quotes s for cmd.exe and PowerShell alike when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t&()[]{}^=;!'+,`~") {
		return s
	}
	return `"` + s + `"`
}
