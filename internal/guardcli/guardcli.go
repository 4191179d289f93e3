// Package guardcli is the user's own place to read and change the guards
// (issue 27, "The guards are the user's"):
//
//	gasoline-host policy                                  the approval rules, numbered
//	gasoline-host policy add EFFECT CLASS ACTION ORIGIN   e.g. allow mutating 'interact.*' 'http://127.0.0.1:*'
//	gasoline-host policy remove N
//	gasoline-host policy reset                            no rules: the built-in default
//	gasoline-host redaction                               the user patterns and mask selectors
//	gasoline-host redaction add REGEX
//	gasoline-host redaction remove LABEL|REGEX
//
// An agent may read both over MCP and ask to tighten them (a gate or deny
// rule, a new pattern); loosening is refused to it and done here. A change
// shows what it does in words and asks "Change it? [y/N]" on a terminal,
// which an agent's shell tool does not have — the same wall as
// `gasoline-host approve`, against what the agent holds rather than every
// program of the user (docs/SECURITY.md says so). Changes are written to
// the files the daemon reads (policy.json, redaction.json, atomically);
// the running daemon picks them up on its next call.
package guardcli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// isTerminal reports a person at a terminal on stdin (a variable so tests
// can stand in for one).
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// errNotChanged is a change the person did not confirm.
var errNotChanged = errors.New("not changed (only y or yes changes it)")

// confirm shows a change and asks for it on the terminal; only y or yes
// goes ahead.
func confirm(stdin io.Reader, stderr io.Writer, what string, lines []string) error {
	if !isTerminal(stdin) {
		return fmt.Errorf("%s must be run by a person at a terminal (stdin is not a terminal): agents may not change Gasoline's guards", what)
	}
	for _, l := range lines {
		fmt.Fprintf(stderr, "  %s\n", l)
	}
	fmt.Fprint(stderr, "Change it? [y/N] ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return errNotChanged
	}
	return nil
}

// Main runs `gasoline-host policy …` (redaction false) or `gasoline-host
// redaction …`.
func Main(ctx context.Context, redaction bool, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if redaction {
		return redactionMain(args, stdin, stdout, stderr)
	}
	return policyMain(args, stdin, stdout, stderr)
}
