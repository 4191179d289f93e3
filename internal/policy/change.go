package policy

import (
	"fmt"
	"strings"
)

// What replacing one policy by another does, rule by rule, and whether it
// loosens the guard: the user's to do, never an agent's (issue 27, "The
// guards are the user's").

// Change is the rules one policy adds to and removes from another.
type Change struct {
	Added   []Rule
	Removed []Rule
}

// Diff is the change from old to next (nil old: the built-in default,
// which has no rules). Rules are compared by effect, class, action and
// origin; a rule listed twice counts twice.
func Diff(old, next *Policy) Change {
	have := map[string]int{}
	for _, r := range rulesOf(old) {
		have[r.key()]++
	}
	var c Change
	for _, r := range rulesOf(next) {
		if have[r.key()] > 0 {
			have[r.key()]--
			continue
		}
		c.Added = append(c.Added, r)
	}
	for _, r := range rulesOf(old) {
		if have[r.key()] > 0 {
			have[r.key()]--
			c.Removed = append(c.Removed, r)
		}
	}
	return c
}

func rulesOf(p *Policy) []Rule {
	if p == nil {
		return nil
	}
	return p.Rules
}

func (r Rule) key() string {
	return string(r.Effect) + "\x00" + r.Class + "\x00" + r.Action + "\x00" + r.Origin
}

// Empty reports a change that changes nothing.
func (c Change) Empty() bool { return len(c.Added) == 0 && len(c.Removed) == 0 }

// Loosens reports whether the change could let some call run with less
// asking than before: it adds an allow rule, or removes a gate or deny
// rule. Adding gate or deny rules and removing allow rules never loosens:
// among the rules that match a call the strongest wins, and where none
// matches the default (read_only allow, the rest gate) is never weaker
// than an allow rule.
func (c Change) Loosens() bool {
	for _, r := range c.Added {
		if r.Effect == Allow {
			return true
		}
	}
	for _, r := range c.Removed {
		if r.Effect != Allow {
			return true
		}
	}
	return false
}

// Lines says the change in words, a line a rule: "adds: deny sensitive
// interact.execute_js on https://*.bank.com (refused outright)".
func (c Change) Lines() []string {
	var out []string
	for _, r := range c.Added {
		out = append(out, "adds: "+r.Words())
	}
	for _, r := range c.Removed {
		out = append(out, "removes: "+r.Words())
	}
	return out
}

// Words says a rule in plain words.
func (r Rule) Words() string {
	class := strings.ReplaceAll(r.Class, "_", "-") + " calls"
	if r.Class == "*" {
		class = "calls of every class"
	}
	action := "of " + r.Action
	switch {
	case r.Action == "*":
		action = "of every tool"
	case strings.HasSuffix(r.Action, ".*"):
		action = "of every " + strings.TrimSuffix(r.Action, ".*") + " mode"
	}
	origin := "on " + r.Origin
	if r.Origin == "*" {
		origin = "on every site"
	}
	what := map[Effect]string{Allow: "run without asking you", Gate: "ask you first", Deny: "are refused outright"}[r.Effect]
	return fmt.Sprintf("%s %s %s %s (%s %s %s %s)", capitalize(class), action, origin, what, r.Effect, r.Class, r.Action, r.Origin)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
