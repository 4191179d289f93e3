package service

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

var testUnit = Unit{
	Name:        "gasoline",
	Description: "Gasoline daemon at 100%",
	Executable:  `/home/a b/.local/bin/gasoline-host`,
	Arguments:   []string{"daemon"},
	Env:         map[string]string{"GASOLINE_PORT": "7891", "GASOLINE_HOME": `/home/a b/state "x" $HOME`},
}

func TestSystemdUnit(t *testing.T) {
	got, err := SystemdUnit(testUnit)
	if err != nil {
		t.Fatal(err)
	}
	want := `[Unit]
Description=Gasoline daemon at 100%%
StartLimitIntervalSec=60
StartLimitBurst=5

[Service]
Type=simple
ExecStart="/home/a b/.local/bin/gasoline-host" "daemon"
Environment="GASOLINE_HOME=/home/a b/state \"x\" $HOME"
Environment="GASOLINE_PORT=7891"
Restart=on-failure
RestartSec=1

[Install]
WantedBy=default.target
`
	if got != want {
		t.Errorf("unit:\n--- got\n%s--- want\n%s", got, want)
	}
}

func TestSystemdUnitEscapesDollarInCommand(t *testing.T) {
	u := testUnit
	u.Executable = `/opt/$x\y/gasoline-host`
	got, err := SystemdUnit(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := `ExecStart="/opt/$$x\\y/gasoline-host" "daemon"`; !strings.Contains(got, want+"\n") {
		t.Errorf("unit lacks %s:\n%s", want, got)
	}
}

func TestLaunchdPlist(t *testing.T) {
	u := testUnit
	u.Name = "com.gasoline.daemon"
	u.LogFile = "/Users/a/Library/Application Support/Gasoline/logs/launchd.log"
	u.Env = map[string]string{"GASOLINE_HOME": "/Users/a/<&>"}
	got, err := LaunchdPlist(u)
	if err != nil {
		t.Fatal(err)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>com.gasoline.daemon</string>
	<key>ProgramArguments</key>
	<array>
		<string>/home/a b/.local/bin/gasoline-host</string>
		<string>daemon</string>
	</array>
	<key>EnvironmentVariables</key>
	<dict>
		<key>GASOLINE_HOME</key>
		<string>/Users/a/&lt;&amp;&gt;</string>
	</dict>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>StandardErrorPath</key>
	<string>/Users/a/Library/Application Support/Gasoline/logs/launchd.log</string>
	<key>StandardOutPath</key>
	<string>/Users/a/Library/Application Support/Gasoline/logs/launchd.log</string>
</dict>
</plist>
`
	if got != want {
		t.Errorf("plist:\n--- got\n%s--- want\n%s", got, want)
	}
	// Well-formed XML, and the program arguments read back as written.
	d := xml.NewDecoder(strings.NewReader(got))
	var strs []string
	inString := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("plist is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inString = tok.Name.Local == "string"
		case xml.CharData:
			if inString {
				strs = append(strs, string(tok))
			}
		case xml.EndElement:
			inString = false
		}
	}
	if len(strs) < 4 || strs[1] != u.Executable || strs[2] != "daemon" || strs[3] != "/Users/a/<&>" {
		t.Errorf("decoded strings %q", strs)
	}
}

func TestUnitRejects(t *testing.T) {
	for name, mod := range map[string]func(*Unit){
		"newline in path":    func(u *Unit) { u.Executable = "/a\n/b" },
		"template in env":    func(u *Unit) { u.Env = map[string]string{"X": "{{Path}}"} },
		"no executable":      func(u *Unit) { u.Executable = "" },
		"newline in env key": func(u *Unit) { u.Env = map[string]string{"X\nY": "1"} },
	} {
		t.Run(name, func(t *testing.T) {
			u := testUnit
			mod(&u)
			if _, err := SystemdUnit(u); err == nil {
				t.Error("SystemdUnit: got nil error")
			}
			if _, err := LaunchdPlist(u); err == nil {
				t.Error("LaunchdPlist: got nil error")
			}
		})
	}
}
