package policy

import (
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *Policy {
	t.Helper()
	p, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestDefaultPolicy(t *testing.T) {
	tests := []struct {
		class Class
		want  Effect
	}{
		{ReadOnly, Allow},
		{Mutating, Gate},
		{Sensitive, Gate},
		{"", Deny},
		{"root", Deny},
	}
	for _, tt := range tests {
		eff, rule := Default().Decide(tt.class, "interact.click", "https://shop.example")
		if eff != tt.want || !rule.Builtin {
			t.Errorf("Default().Decide(%q) = %s (%s), want %s from the built-in default", tt.class, eff, rule, tt.want)
		}
	}
}

// TestPrecedence: among matching rules deny beats gate beats allow,
// whatever their order; with no match the default applies.
func TestPrecedence(t *testing.T) {
	const local = `{"effect":"allow","class":"*","action":"*","origin":"http://127.0.0.1:*"}`
	const gateClick = `{"effect":"gate","class":"mutating","action":"interact.click","origin":"*"}`
	const denyBankJS = `{"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"}`
	const allowBank = `{"effect":"allow","class":"*","action":"interact.*","origin":"https://*.bank.com"}`
	const denyAll = `{"effect":"deny","class":"*","action":"*","origin":"*"}`
	const gateReads = `{"effect":"gate","class":"read_only","action":"observe.*","origin":"https://*.bank.com"}`
	tests := []struct {
		name   string
		rules  []string
		class  Class
		action string
		origin string
		want   Effect
		rule   string // substring of the deciding rule; "" = the default
	}{
		{"allow alone", []string{local}, Mutating, "interact.click", "http://127.0.0.1:3000", Allow, "http://127.0.0.1:*"},
		{"gate beats allow", []string{local, gateClick}, Mutating, "interact.click", "http://127.0.0.1:3000", Gate, "interact.click"},
		{"gate beats allow, reversed", []string{gateClick, local}, Mutating, "interact.click", "http://127.0.0.1:3000", Gate, "interact.click"},
		{"allow where gate does not match", []string{local, gateClick}, Mutating, "interact.type", "http://127.0.0.1:3000", Allow, "127.0.0.1"},
		{"deny beats allow", []string{allowBank, denyBankJS}, Sensitive, "interact.execute_js", "https://www.bank.com", Deny, "execute_js"},
		{"deny beats gate and allow", []string{allowBank, gateClick, denyAll}, Mutating, "interact.click", "https://www.bank.com", Deny, "deny * * *"},
		{"allow on bank for other modes", []string{allowBank, denyBankJS}, Mutating, "interact.click", "https://www.bank.com", Allow, "interact.*"},
		{"deny only on its origin", []string{denyBankJS}, Sensitive, "interact.execute_js", "https://shop.example", Gate, ""},
		{"deny not fooled by suffix host", []string{denyBankJS}, Sensitive, "interact.execute_js", "https://www.bank.com.evil.com", Gate, ""},
		{"no match: default allow for reads", []string{gateClick}, ReadOnly, "observe.snapshot", "https://shop.example", Allow, ""},
		{"no match: default gate", []string{local}, Mutating, "interact.click", "https://shop.example", Gate, ""},
		{"gate on reads", []string{gateReads}, ReadOnly, "observe.snapshot", "https://www.bank.com", Gate, "observe.*"},
		{"tool prefix is a whole tool", []string{`{"effect":"deny","class":"*","action":"interact.*","origin":"*"}`}, Mutating, "interactx.click", "", Gate, ""},
		{"empty origin only matches *", []string{local}, Mutating, "interact.new_tab", "", Gate, ""},
		{"allow cannot pre-approve a policy change", []string{`{"effect":"allow","class":"*","action":"*","origin":"*"}`}, Mutating, "configure.policy", "", Gate, "allow * * *"},
		{"allow cannot pre-approve a redaction change", []string{`{"effect":"allow","class":"mutating","action":"configure.*","origin":"*"}`}, Mutating, "configure.redaction", "", Gate, "configure.*"},
		{"viewing the policy is a read", []string{`{"effect":"allow","class":"*","action":"*","origin":"*"}`}, ReadOnly, "configure.policy", "", Allow, "allow"},
		{"deny still denies a policy change", []string{denyAll}, Mutating, "configure.policy", "", Deny, "deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, `{"version":1,"rules":[`+strings.Join(tt.rules, ",")+`]}`)
			eff, rule := p.Decide(tt.class, tt.action, tt.origin)
			if eff != tt.want {
				t.Fatalf("Decide(%s, %s, %q) = %s by %s, want %s", tt.class, tt.action, tt.origin, eff, rule, tt.want)
			}
			if tt.rule == "" && !rule.Builtin || tt.rule != "" && (rule.Builtin || !strings.Contains(rule.String(), tt.rule)) {
				t.Fatalf("decided by %s, want %q", rule, tt.rule)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not json", `{`, "not valid policy JSON"},
		{"unknown field", `{"rules":[{"efect":"allow","class":"*","action":"*","origin":"*"}]}`, "unknown field"},
		{"unknown top field", `{"rulez":[]}`, "unknown field"},
		{"bad effect", `{"rules":[{"effect":"permit","class":"*","action":"*","origin":"*"}]}`, "effect"},
		{"missing effect", `{"rules":[{"class":"*","action":"*","origin":"*"}]}`, "effect"},
		{"bad class", `{"rules":[{"effect":"allow","class":"readonly","action":"*","origin":"*"}]}`, "class"},
		{"missing origin", `{"rules":[{"effect":"allow","class":"*","action":"*"}]}`, "origin"},
		{"bad action", `{"rules":[{"effect":"allow","class":"*","action":"interact","origin":"*"}]}`, "action"},
		{"bad action wildcard", `{"rules":[{"effect":"allow","class":"*","action":"*.click","origin":"*"}]}`, "action"},
		{"bad origin", `{"rules":[{"effect":"allow","class":"*","action":"*","origin":"https://ba*.com"}]}`, "origin pattern"},
		{"trailing", `{"rules":[]} {}`, "trailing"},
		{"negative version", `{"version":-1,"rules":[]}`, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse(%s) error = %v, want one containing %q", tt.in, err, tt.want)
			}
		})
	}
	if _, err := Parse([]byte(`{"rules":[]}` + strings.Repeat(" ", MaxFileBytes))); err == nil {
		t.Fatal("Parse accepted a file over MaxFileBytes")
	}
}

// TestHandBuiltRulesFailClosed: a Policy built in code without Validate
// still decides safely: a broken allow rule never allows, and a broken deny
// rule (whose scope cannot be known) denies everything.
func TestHandBuiltRulesFailClosed(t *testing.T) {
	brokenAllow := &Policy{Rules: []Rule{{Effect: Allow, Class: "*", Action: "*", Origin: "https://sh*p.example"}}}
	if eff, r := brokenAllow.Decide(Mutating, "interact.type", "https://shop.example"); eff != Gate {
		t.Errorf("broken allow rule: got %s by %s, want gate (the default)", eff, r)
	}
	brokenDeny := &Policy{Rules: []Rule{
		{Effect: Allow, Class: "*", Action: "*", Origin: "*"},
		{Effect: Deny, Class: "*", Action: "interact.click", Origin: "https://bank.com/oops"},
	}}
	if eff, r := brokenDeny.Decide(ReadOnly, "observe.page", "https://shop.example"); eff != Deny {
		t.Errorf("broken deny rule: got %s by %s, want deny", eff, r)
	}
	noEffect := &Policy{Rules: []Rule{{Class: "*", Action: "*", Origin: "*"}}}
	if eff, r := noEffect.Decide(ReadOnly, "observe.page", ""); eff != Deny {
		t.Errorf("rule without an effect: got %s by %s, want deny", eff, r)
	}
	good := &Policy{Rules: []Rule{{Effect: Allow, Class: "*", Action: "*", Origin: "https://shop.example"}}}
	if eff, _ := good.Decide(Mutating, "interact.type", "https://shop.example"); eff != Allow {
		t.Errorf("valid hand-built rule: got %s, want allow", eff)
	}
	if err := brokenDeny.Validate(); err == nil {
		t.Error("Validate accepted a broken rule")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":2,"rules":[{"effect":"deny","class":"sensitive","action":"interact.execute_js","origin":"https://*.bank.com"}]}`))
	f.Add([]byte(`{"rules":[{"effect":"allow","class":"*","action":"*","origin":"http://127.0.0.1:*"}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := Parse(raw)
		if err != nil {
			return
		}
		for _, c := range []Class{ReadOnly, Mutating, Sensitive} {
			if eff, _ := p.Decide(c, "configure.policy", "https://x.example"); eff == Allow && c.Gated() {
				t.Fatalf("a policy pre-approved a %s configure.policy", c)
			}
		}
		// What Save writes parses back to the same decisions.
		out, err := p.MarshalIndent()
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(out)
		if err != nil {
			t.Fatalf("re-parsing %s: %v", out, err)
		}
		for _, o := range []string{"", "https://a.bank.com", "http://127.0.0.1:9"} {
			e1, _ := p.Decide(Mutating, "interact.click", o)
			e2, _ := q.Decide(Mutating, "interact.click", o)
			if e1 != e2 {
				t.Fatalf("decision changed after a round trip: %s vs %s", e1, e2)
			}
		}
	})
}
