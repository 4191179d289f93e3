package mcpserver

import (
	"context"
	"fmt"
	"os"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Doctor is configure doctor's answer: daemon-side checks, each failure
// with the fix.
type Doctor struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Check is one doctor check.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

func (s *Server) doctor(ctx context.Context, c *Call) (any, error) {
	d := s.opts.Daemon()
	checks := []Check{s.checkStateDir(), checkExtension(d.Extension), s.checkRedaction(), s.checkTools()}
	doc := Doctor{OK: true, Checks: checks}
	for _, ch := range checks {
		doc.OK = doc.OK && ch.OK
	}
	return doc, nil
}

// checkStateDir proves the state directory takes a new file.
func (s *Server) checkStateDir() Check {
	ch := Check{Name: "state_dir_writable"}
	if s.opts.Dir == "" {
		ch.Detail = "the daemon was started without a state directory"
		ch.Fix = "start the daemon with gasoline-host daemon (it uses GASOLINE_HOME or the per-OS default)"
		return ch
	}
	f, err := os.CreateTemp(s.opts.Dir, ".doctor-*")
	if err == nil {
		name := f.Name()
		_, err = f.Write([]byte("ok"))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		os.Remove(name)
	}
	if err != nil {
		ch.Detail = fmt.Sprintf("cannot write in %s: %v", s.opts.Dir, err)
		ch.Fix = fmt.Sprintf("make %s writable by this user (chmod u+rwx), or set GASOLINE_HOME to a writable folder and restart the daemon", s.opts.Dir)
		return ch
	}
	ch.OK, ch.Detail = true, s.opts.Dir+" is writable"
	return ch
}

func checkExtension(connected bool) Check {
	if connected {
		return Check{Name: "extension_connected", OK: true, Detail: "a Gasoline extension is connected"}
	}
	return Check{
		Name:   "extension_connected",
		Detail: "no browser extension is connected, so browser modes cannot run",
		Fix:    "open Chrome with the Gasoline extension installed and enabled; if it is, run gasoline-host install so Chrome can start the native host, then reload the extension",
	}
}

// checkRedaction runs the gateway's self-test through the very redactor
// every tool result passes: planted secrets must come out masked.
func (s *Server) checkRedaction() Check {
	err := redact.SelfTest(func(in string) (string, error) { return s.opts.Redact.Text("", in) })
	if err != nil {
		return Check{Name: "redaction", Detail: err.Error(),
			Fix: "run gasoline-host doctor in a terminal: it names the redaction policy file and what is wrong with it"}
	}
	return Check{Name: "redaction", OK: true, Detail: "the redaction gateway masks planted secrets"}
}

// checkTools proves every mode is classified (the dispatcher refuses any
// that is not).
func (s *Server) checkTools() Check {
	n := s.modeCount()
	for _, t := range tools.All() {
		for _, m := range t.Modes {
			if _, err := tools.Classify(t.Name, m.Name); err != nil {
				return Check{Name: "tool_registry", Detail: err.Error(), Fix: "this build is broken; reinstall Gasoline"}
			}
		}
	}
	return Check{Name: "tool_registry", OK: true, Detail: fmt.Sprintf("%d modes, all classified; %d served by this build", n.Total, n.Served)}
}
