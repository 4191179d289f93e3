package service

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
)

// Unit is what the OS service runs: the binary, its arguments and the
// environment it needs. SystemdUnit and LaunchdPlist render it; they are
// plain functions so the files can be checked on any OS.
type Unit struct {
	Name        string            // systemd unit name without ".service", or launchd label
	Description string            // one line
	Executable  string            // absolute path of gasoline-host
	Arguments   []string          // ["daemon"]
	Env         map[string]string // e.g. GASOLINE_HOME when set
	LogFile     string            // launchd: where stdout and stderr go ("" = nowhere)
}

// SystemdUnit renders a systemd --user unit: started at login
// (default.target), restarted on failure, with a bounded restart rate.
func SystemdUnit(u Unit) (string, error) {
	if err := u.validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[Unit]\nDescription=%s\nStartLimitIntervalSec=60\nStartLimitBurst=5\n\n", systemdSpecifiers(u.Description))
	b.WriteString("[Service]\nType=simple\nExecStart=")
	for i, a := range append([]string{u.Executable}, u.Arguments...) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(systemdQuote(strings.ReplaceAll(a, "$", "$$")))
	}
	b.WriteByte('\n')
	for _, k := range sortedKeys(u.Env) {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(k+"="+u.Env[k]))
	}
	b.WriteString("Restart=on-failure\nRestartSec=1\n\n[Install]\nWantedBy=default.target\n")
	return b.String(), nil
}

// systemdQuote double-quotes s for a unit file: backslash and quote are
// escaped, and % (the specifier prefix) is doubled.
func systemdQuote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	return `"` + systemdSpecifiers(s) + `"`
}

func systemdSpecifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// LaunchdPlist renders a launchd agent: loaded at login (RunAtLoad) and
// kept alive unless it exits cleanly.
func LaunchdPlist(u Unit) (string, error) {
	if err := u.validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`)
	fmt.Fprintf(&b, "\t<key>Label</key>\n\t<string>%s</string>\n", xmlText(u.Name))
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range append([]string{u.Executable}, u.Arguments...) {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", xmlText(a))
	}
	b.WriteString("\t</array>\n")
	if len(u.Env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, k := range sortedKeys(u.Env) {
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n\t\t<string>%s</string>\n", xmlText(k), xmlText(u.Env[k]))
		}
		b.WriteString("\t</dict>\n")
	}
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n")
	if u.LogFile != "" {
		for _, k := range []string{"StandardErrorPath", "StandardOutPath"} {
			fmt.Fprintf(&b, "\t<key>%s</key>\n\t<string>%s</string>\n", k, xmlText(u.LogFile))
		}
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String(), nil
}

func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writes to a buffer: cannot fail
	return b.String()
}

// validate rejects what no unit file can carry, and "{{", which kardianos
// would read as a template action when the text is handed to it.
func (u Unit) validate() error {
	all := append([]string{u.Name, u.Description, u.Executable, u.LogFile}, u.Arguments...)
	for k, v := range u.Env {
		all = append(all, k, v)
	}
	for _, s := range all {
		if strings.ContainsAny(s, "\n\r\x00") || strings.Contains(s, "{{") {
			return fmt.Errorf("service: %q cannot go in a service file", s)
		}
	}
	if u.Name == "" || u.Executable == "" {
		return fmt.Errorf("service: unit needs a name and an executable")
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
