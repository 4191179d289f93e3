package safety

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/gate"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/policy"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// The guards are the user's (issue 27): over MCP an agent may read the
// approval policy and the redaction settings, and may ask to tighten them
// (a gate or deny rule, a new redaction pattern) — the user then sees the
// exact change — but a change that would let more run without asking, or
// show the agent more, is refused before anything is asked, whatever the
// user could approve. The user loosens them in a terminal: `gasoline-host
// policy …`, `gasoline-host redaction …` (internal/guardcli).

// CodeUserOnly is the error of a change only the user may make.
const CodeUserOnly = "user_only"

// Explain is gate.Config.Configure: what a configure call changes, in the
// words the user approves, or its refusal when it loosens a guard.
func (c *Core) Explain(call *mcpserver.Call) (gate.Words, *tools.Error) {
	switch call.Mode.Name {
	case "policy":
		return c.explainPolicy(call)
	case "redaction":
		return c.explainRedaction(call)
	}
	return configureWords(call), nil
}

// explainPolicy: op set replaces the rules; it may add gate and deny rules
// and drop allow rules, nothing else.
func (c *Core) explainPolicy(call *mcpserver.Call) (gate.Words, *tools.Error) {
	next, change, e := c.policyChange(call)
	if e != nil {
		return gate.Words{}, e
	}
	w := gate.Words{Target: fmt.Sprintf("change the approval policy: %s", changeCount(change)), Notes: change.Lines()}
	if change.Empty() {
		w.Target = "set the approval policy to the rules it has now (no change)"
	}
	shown := *next
	if cur, err := c.Policy.Current(); err == nil {
		shown.Version = cur.Version + 1 // the version it is saved as
	}
	raw, _ := shown.MarshalIndent()
	w.Detail, w.DetailLabel = string(raw), "The whole policy after the change"
	return w, nil
}

// policyChange parses op set's rules and compares them with the policy in
// force; a change that loosens it is refused (user_only).
func (c *Core) policyChange(call *mcpserver.Call) (*policy.Policy, policy.Change, *tools.Error) {
	raw, err := json.Marshal(call.Args["rules"])
	if err != nil {
		return nil, policy.Change{}, tools.Errorf(tools.CodeInvalidArgument, "rules: %v", err)
	}
	next, err := policy.Parse(raw)
	if err != nil {
		return nil, policy.Change{}, tools.Errorf(tools.CodeInvalidArgument, "rules: %v", err)
	}
	cur, err := c.Policy.Current()
	if err != nil {
		return nil, policy.Change{}, &tools.Error{Code: CodeUserOnly, Message: "the policy file is broken (" + err.Error() +
			"), so every mutating call is refused; only the user can replace it: ask the user to fix " + c.Policy.Path() + " or run `gasoline-host policy` in a terminal"}
	}
	change := policy.Diff(cur, next)
	if change.Loosens() {
		return nil, change, &tools.Error{Code: CodeUserOnly, Message: "configure policy set would let calls run with less asking (it " +
			strings.Join(change.Lines(), "; it ") + "). Loosening the approval policy is the user's decision alone: no agent may do it, even with an approval. " +
			"Ask the user to change it in a terminal (`gasoline-host policy` shows the rules; `gasoline-host policy add allow …` and `gasoline-host policy remove N` change them). " +
			"You may ask to tighten it: add gate or deny rules, or drop allow rules"}
	}
	return next, change, nil
}

func changeCount(c policy.Change) string {
	var parts []string
	if n := len(c.Added); n > 0 {
		parts = append(parts, fmt.Sprintf("add %d %s", n, map[bool]string{true: "rule", false: "rules"}[n == 1]))
	}
	if n := len(c.Removed); n > 0 {
		parts = append(parts, fmt.Sprintf("remove %d allow %s", n, map[bool]string{true: "rule", false: "rules"}[n == 1]))
	}
	return strings.Join(parts, " and ") + " (each below)"
}

// explainRedaction: add_pattern masks more and is asked with its exact
// expression; remove_pattern would show the agent more and is refused.
func (c *Core) explainRedaction(call *mcpserver.Call) (gate.Words, *tools.Error) {
	pat := call.Str("pattern")
	switch call.Str("op") {
	case "remove_pattern":
		return gate.Words{}, removalRefused(pat)
	case "add_pattern":
		if _, err := c.red.store.Policy(); err != nil {
			// Saving over a broken file would drop the user's own patterns.
			return gate.Words{}, &tools.Error{Code: CodeUserOnly, Message: "the redaction policy file is broken (" + err.Error() +
				"), so every output is blocked; only the user can fix it: ask the user to fix " + c.red.store.Path() + " (`gasoline-host redaction` shows the error)"}
		}
		if pat == "" {
			return gate.Words{}, tools.Errorf(tools.CodeInvalidArgument, "add_pattern needs pattern: a regular expression (RE2)")
		}
		if _, err := regexp.Compile(pat); err != nil {
			return gate.Words{}, tools.Errorf(tools.CodeInvalidArgument, "pattern %q is not a regular expression (RE2): %v", pat, err)
		}
		return gate.Words{Target: "add the redaction pattern " + quote(pat),
			Notes: []string{"From then on, text that matches it is masked in everything the agent sees; nothing is shown that was masked before."}}, nil
	}
	return gate.Words{}, tools.Errorf(tools.CodeInvalidArgument, "op must be get, add_pattern or remove_pattern")
}

func removalRefused(pat string) *tools.Error {
	return &tools.Error{Code: CodeUserOnly, Message: fmt.Sprintf("configure redaction remove_pattern would show the agent what the pattern %s masks. "+
		"Removing a redaction pattern is the user's decision alone: no agent may do it, even with an approval. "+
		"Ask the user to run `gasoline-host redaction remove %s` in a terminal (`gasoline-host redaction` lists the patterns)", quote(pat), shellWord(pat))}
}

// configureWords names the other gated configure calls (none loosens a
// guard): what each changes, with its arguments.
func configureWords(call *mcpserver.Call) gate.Words {
	switch call.Mode.Name {
	case "store":
		v := call.Str("value")
		w := gate.Words{Target: fmt.Sprintf("save the note %s (%d characters) in Gasoline's state folder", quote(call.Str("key")), len([]rune(v)))}
		w.Detail, w.DetailLabel = v, "The whole note"
		return w
	case "clear":
		if b := call.Str("buffer"); b != "" {
			return gate.Words{Target: "clear the " + quote(b) + " capture buffer"}
		}
		return gate.Words{Target: "clear every capture buffer (logs, errors, network, actions)"}
	case "noise_rule":
		if call.Str("op") == "remove" {
			return gate.Words{Target: "stop hiding errors and logs that match " + quote(call.Str("pattern"))}
		}
		return gate.Words{Target: "hide errors and logs that match " + quote(call.Str("pattern")) + " from the agent, as noise"}
	case "agent_watch":
		if call.Str("op") == "disable" {
			return gate.Words{Target: "turn off automatic read-only checks on errors"}
		}
		return gate.Words{Target: "turn on automatic read-only checks on errors and failed requests (they never change the page)"}
	case "recording_start":
		if n := call.Str("name"); n != "" {
			return gate.Words{Target: "start recording your clicks and typing in the tab as " + quote(n) + " (passwords are never recorded)"}
		}
		return gate.Words{Target: "start recording your clicks and typing in the tab (passwords are never recorded)"}
	case "recording_stop":
		return gate.Words{Target: "stop recording your actions in the tab"}
	}
	return gate.Words{Target: call.Mode.Key()}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// shellWord quotes s for a shell command line.
func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
