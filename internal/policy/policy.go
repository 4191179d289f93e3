// Package policy is Gasoline's approval policy: rules that allow, gate or
// deny a call by its action class, its action ("tool.mode") and the origin
// it acts on (SAFETY.md, "Approval engine"). The file is
// $GASOLINE_HOME/policy.json unless $GASOLINE_POLICY names another:
//
//	{"version": 3, "rules": [
//	  {"effect": "allow", "class": "*",         "action": "*",                  "origin": "http://127.0.0.1:*"},
//	  {"effect": "deny",  "class": "sensitive", "action": "interact.execute_js", "origin": "https://*.bank.com"}]}
//
// Among the rules that match a call, deny beats gate beats allow. When no
// rule matches, the built-in default applies: read_only allow, mutating gate,
// sensitive gate. A rule can never pre-approve a change to the guards
// themselves (see AlwaysAsk). A file that fails to parse is an error; the
// Store turns that into a fail-closed decision.
package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Effect is what a rule does with a call it matches.
type Effect string

// The effects, weakest first.
const (
	Allow Effect = "allow" // run without asking
	Gate  Effect = "gate"  // ask the user (the approval engine)
	Deny  Effect = "deny"  // refuse outright
)

// rank orders effects: deny beats gate beats allow.
func (e Effect) rank() int {
	switch e {
	case Allow:
		return 1
	case Gate:
		return 2
	case Deny:
		return 3
	}
	return 0
}

// Class is an action's safety class (SAFETY.md, "Classification"). The
// values equal those of the tool table's classes, so callers convert with
// policy.Class(c).
type Class string

// The classes.
const (
	ReadOnly  Class = "read_only"
	Mutating  Class = "mutating"
	Sensitive Class = "sensitive"
)

// Valid reports whether c is one of the three classes.
func (c Class) Valid() bool { return c == ReadOnly || c == Mutating || c == Sensitive }

// Gated reports whether c is mutating or sensitive.
func (c Class) Gated() bool { return c == Mutating || c == Sensitive }

// Limits on a policy file; anything larger is refused.
const (
	MaxFileBytes = 1 << 20
	MaxRules     = 1000
)

// Rule is one line of the policy. Every field is required; "*" matches
// anything.
type Rule struct {
	Effect Effect `json:"effect"`
	Class  string `json:"class"`  // read_only | mutating | sensitive | *
	Action string `json:"action"` // tool.mode | tool.* | *
	Origin string `json:"origin"` // * | scheme://host[:port], "*." host prefix and ":*" port allowed

	// Builtin marks a rule of the built-in default (no user rule matched).
	Builtin  bool `json:"-"`
	origin   pattern
	compiled bool
}

// String describes the rule for error messages and the audit log.
func (r Rule) String() string {
	src := "rule"
	if r.Builtin {
		src = "default rule"
	}
	return fmt.Sprintf("%s {%s %s %s %s}", src, r.Effect, r.Class, r.Action, r.Origin)
}

// Policy is a parsed, validated policy. Build one with Parse or Default;
// the zero Policy has no rules and decides by the built-in default.
type Policy struct {
	// Version is the policy's revision, shown by configure {what:"policy"};
	// Store.Replace sets it to the previous revision plus one.
	Version int    `json:"version"`
	Rules   []Rule `json:"rules"`
}

var defaults = mustCompile([]Rule{
	{Effect: Allow, Class: string(ReadOnly), Action: "*", Origin: "*", Builtin: true},
	{Effect: Gate, Class: string(Mutating), Action: "*", Origin: "*", Builtin: true},
	{Effect: Gate, Class: string(Sensitive), Action: "*", Origin: "*", Builtin: true},
})

// Default returns the policy used when no file exists: read_only allow,
// mutating gate, sensitive gate.
func Default() *Policy {
	return &Policy{Rules: []Rule{}}
}

// alwaysAsk lists the actions no rule may pre-approve when they are
// mutating or sensitive: loosening the guards needs the user every time,
// and so does a plan (interact plan), which lets later calls run unasked.
var alwaysAsk = map[string]bool{"configure.policy": true, "configure.redaction": true, "interact.plan": true}

// AlwaysAsk reports whether a mutating or sensitive call of action must
// reach the user even when a rule or a site grant would allow it.
func AlwaysAsk(action string) bool { return alwaysAsk[action] }

// Parse decodes and validates a policy file. Unknown fields, a missing
// field, an unknown effect or class, a malformed action or origin pattern,
// trailing data, or more than MaxRules rules are errors.
func Parse(raw []byte) (*Policy, error) {
	if len(raw) > MaxFileBytes {
		return nil, fmt.Errorf("policy: file is %d bytes, the limit is %d", len(raw), MaxFileBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p Policy
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("policy: not valid policy JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("policy: trailing data after the policy object")
	}
	if err := p.compile(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks a policy built by hand (Parse already validates) and
// compiles its origin patterns.
func (p *Policy) Validate() error { return p.compile() }

// compile validates every rule and compiles its origin pattern.
func (p *Policy) compile() error {
	if p.Version < 0 {
		return fmt.Errorf("policy: version %d is negative", p.Version)
	}
	if len(p.Rules) > MaxRules {
		return fmt.Errorf("policy: %d rules, the limit is %d", len(p.Rules), MaxRules)
	}
	if p.Rules == nil {
		p.Rules = []Rule{}
	}
	for i := range p.Rules {
		if err := p.Rules[i].compile(); err != nil {
			return fmt.Errorf("policy: rule %d: %w", i+1, err)
		}
	}
	return nil
}

func (r *Rule) compile() error {
	if r.Effect.rank() == 0 {
		return fmt.Errorf("effect %q: want allow, gate or deny", r.Effect)
	}
	if r.Class != "*" && !Class(r.Class).Valid() {
		return fmt.Errorf("class %q: want read_only, mutating, sensitive or *", r.Class)
	}
	if !validActionPattern(r.Action) {
		return fmt.Errorf("action %q: want tool.mode, tool.* or *", r.Action)
	}
	pat, err := parsePattern(r.Origin)
	if err != nil {
		return err
	}
	r.origin, r.compiled = pat, true
	return nil
}

func mustCompile(rules []Rule) []Rule {
	for i := range rules {
		if err := rules[i].compile(); err != nil {
			panic(err)
		}
	}
	return rules
}

// validActionPattern accepts "*", "tool.*" and "tool.mode" with lowercase
// letters, digits and '_' in each part.
func validActionPattern(s string) bool {
	if s == "*" {
		return true
	}
	tool, mode, ok := strings.Cut(s, ".")
	return ok && ident(tool) && (mode == "*" || ident(mode))
}

func ident(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// match reports whether the rule covers the call. A rule that was never
// compiled (a Policy built by hand, not by Parse or Validate) is compiled
// on a copy; if it is invalid it matches when it would deny or gate and
// never when it would allow, so a broken rule fails closed.
func (r *Rule) match(class Class, action string, o Origin, ok bool) bool {
	if !r.compiled {
		c := *r
		if err := c.compile(); err != nil {
			return r.Effect != Allow
		}
		return c.match(class, action, o, ok)
	}
	if r.Class != "*" && Class(r.Class) != class {
		return false
	}
	switch {
	case r.Action == "*":
	case strings.HasSuffix(r.Action, ".*"):
		if !strings.HasPrefix(action, strings.TrimSuffix(r.Action, "*")) {
			return false
		}
	case r.Action != action:
		return false
	}
	return r.origin.match(o, ok)
}

// Decide returns the effect for a call of class and action ("tool.mode")
// on origin (a web origin or URL; "" or an opaque origin matches only
// rules whose origin is "*"), and the rule that decided it. Among the
// matching rules the strongest effect wins (deny > gate > allow; the first
// such rule is reported). With no match the built-in default decides. An
// unknown class is denied. A mutating or sensitive call of an AlwaysAsk
// action is never allowed: allow becomes gate.
func (p *Policy) Decide(class Class, action, origin string) (Effect, Rule) {
	if !class.Valid() {
		return Deny, Rule{Effect: Deny, Class: string(class), Action: action, Origin: "*", Builtin: true}
	}
	o, err := ParseOrigin(origin)
	ok := err == nil && origin != ""
	best := -1
	if p != nil {
		for i := range p.Rules {
			r := &p.Rules[i]
			if r.match(class, action, o, ok) && (best < 0 || r.effect().rank() > p.Rules[best].effect().rank()) {
				best = i
			}
		}
	}
	var rule Rule
	if best >= 0 {
		rule = p.Rules[best]
	} else {
		for _, d := range defaults {
			if d.match(class, action, o, ok) {
				rule = d
				break
			}
		}
	}
	eff := rule.effect()
	if eff == Allow && class.Gated() && AlwaysAsk(action) {
		return Gate, rule
	}
	return eff, rule
}

// effect is the rule's effect, with an unknown one (a hand-built rule that
// skipped validation) read as deny.
func (r *Rule) effect() Effect {
	if r.Effect.rank() == 0 {
		return Deny
	}
	return r.Effect
}

// MarshalIndent returns the policy as the file stores it.
func (p *Policy) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Evaluate is Decide in the form the approval engine consumes; a parsed
// Policy never fails, so the error is always nil.
func (p *Policy) Evaluate(class Class, action, origin string) (Effect, Rule, error) {
	eff, r := p.Decide(class, action, origin)
	return eff, r, nil
}
