package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// DefaultVersion is the version of [DefaultPolicy]. Bump it whenever the
// built-in rules change what is redacted.
const DefaultVersion = "gasoline-redact/2"

// DefaultMaxInputBytes is the default cap on one input: 32 MiB.
const DefaultMaxInputBytes = 32 << 20

// maxInputCap is the largest max_input_bytes a policy may set: 1 GiB.
const maxInputCap = 1 << 30

// Limits on a policy file and its contents.
const (
	maxPolicyFileBytes = 1 << 20
	maxUserPatterns    = 256
	maxLabelLen        = 32
	maxNamedKeys       = 1024
	maxMaskSelectors   = 64
	maxSelectorLen     = 256
)

// Policy is one versioned redaction policy. The zero value of every field but
// Version means "default"; [DefaultPolicy] is the policy in force when no file
// is configured. Policies are plain data: [New] validates and compiles one.
type Policy struct {
	// Version names the policy; it is reported as policy_version. Required.
	Version string `json:"version"`
	// Disable turns built-in classes off, by label. Unknown labels, and
	// "user" (remove the patterns instead), are rejected.
	Disable []Class `json:"disable,omitempty"`
	// UserPatterns are extra regular expressions (RE2 syntax), each with its
	// own label. A pattern with a capture group redacts group 1 only.
	UserPatterns []Pattern `json:"user_patterns,omitempty"`
	// SecretKeys are extra key names whose values are always redacted (as
	// "password"). Matching ignores case and the separators - _ . and space.
	SecretKeys []string `json:"secret_keys,omitempty"`
	// AllowKeys are key names never redacted by name (their values are still
	// scanned for value patterns). Same matching as SecretKeys.
	AllowKeys []string `json:"allow_keys,omitempty"`
	// MaxInputBytes caps one input; larger inputs are blocked. 0 means
	// DefaultMaxInputBytes.
	MaxInputBytes int64 `json:"max_input_bytes,omitempty"`
	// MaskSelectors are CSS selectors of elements masked in screenshots,
	// besides password and card fields (always masked).
	MaskSelectors []string `json:"mask_selectors,omitempty"`
}

// Pattern is a user-configured value pattern.
type Pattern struct {
	Label string `json:"label"` // [a-z][a-z0-9_]*, at most 32 bytes
	Regex string `json:"regex"` // RE2 syntax; must not match the empty string
}

// NextLabel names a user pattern added without a label: user_1, user_2,
// … (the first not taken).
func NextLabel(ps []Pattern) string {
	used := map[string]bool{}
	for _, p := range ps {
		used[p.Label] = true
	}
	for n := 1; ; n++ {
		if l := "user_" + strconv.Itoa(n); !used[l] {
			return l
		}
	}
}

// DefaultPolicy returns the built-in policy: every class on, no user
// patterns, a 32 MiB input cap.
func DefaultPolicy() Policy {
	return Policy{Version: DefaultVersion, MaxInputBytes: DefaultMaxInputBytes}
}

// LoadPolicy reads a JSON policy file. Unknown fields, trailing data, a
// missing version or an invalid pattern are errors wrapping [ErrPolicy]; the
// caller must then fail closed. The error names the file, never its values.
func LoadPolicy(path string) (Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return Policy{}, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxPolicyFileBytes+1))
	if err != nil {
		return Policy{}, fmt.Errorf("%w: reading %s: %v", ErrPolicy, path, err)
	}
	if len(raw) > maxPolicyFileBytes {
		return Policy{}, fmt.Errorf("%w: %s is over %d bytes", ErrPolicy, path, maxPolicyFileBytes)
	}
	p, err := ParsePolicy(raw)
	if err != nil {
		return Policy{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy parses and validates a JSON policy (see [LoadPolicy]).
func ParsePolicy(raw []byte) (Policy, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p Policy
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("%w: parsing: %v", ErrPolicy, err)
	}
	if dec.Decode(&struct{}{}) != io.EOF {
		return Policy{}, fmt.Errorf("%w: trailing data after the policy object", ErrPolicy)
	}
	if _, err := compile(p); err != nil {
		return Policy{}, err
	}
	return p, nil
}

// compiled is a validated policy ready for the engine.
type compiled struct {
	version  string
	maxInput int64
	disabled map[string]bool
	user     []userPattern
	secret   map[string]bool // normalized key names
	allow    map[string]bool // normalized key names
	masks    []string        // screenshot mask selectors
}

// userPattern is one compiled user pattern.
type userPattern struct {
	label string
	re    *regexp.Regexp
	group bool   // redact submatch 1 instead of the whole match
	lit   string // a literal every match contains; "" when unknown
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re must contain, or "". Strings without it skip the regex,
// which matters because a leading \b defeats regexp's own prefix scan.
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return string(re.Rune)
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

// compile validates p. Every error wraps ErrPolicy and names the offending
// field by index, never by content.
func compile(p Policy) (*compiled, error) {
	bad := func(format string, args ...any) (*compiled, error) {
		return nil, fmt.Errorf("%w: "+format, append([]any{ErrPolicy}, args...)...)
	}
	if p.Version == "" {
		return bad("version is required")
	}
	if p.MaxInputBytes < 0 || p.MaxInputBytes > maxInputCap {
		return bad("max_input_bytes must be between 0 and %d", maxInputCap)
	}
	c := &compiled{version: p.Version, maxInput: p.MaxInputBytes, disabled: map[string]bool{}}
	if c.maxInput == 0 {
		c.maxInput = DefaultMaxInputBytes
	}
	known := map[Class]bool{}
	for _, k := range Classes() {
		known[k] = true
	}
	for i, d := range p.Disable {
		if !known[d] || d == User {
			return bad("disable[%d] is not a built-in class", i)
		}
		c.disabled[string(d)] = true
	}
	if len(p.UserPatterns) > maxUserPatterns {
		return bad("more than %d user patterns", maxUserPatterns)
	}
	for i, up := range p.UserPatterns {
		if !validLabel(up.Label) {
			return bad("user_patterns[%d].label must match [a-z][a-z0-9_]{0,31}", i)
		}
		re, err := regexp.Compile(up.Regex)
		if err != nil {
			return bad("user_patterns[%d].regex does not compile", i)
		}
		if re.MatchString("") {
			return bad("user_patterns[%d].regex matches the empty string", i)
		}
		c.user = append(c.user, userPattern{label: up.Label, re: re, group: re.NumSubexp() > 0, lit: literalOf(up.Regex)})
	}
	var err error
	if c.secret, err = keySet("secret_keys", p.SecretKeys); err != nil {
		return nil, err
	}
	if c.allow, err = keySet("allow_keys", p.AllowKeys); err != nil {
		return nil, err
	}
	if c.masks, err = maskSet(p.MaskSelectors); err != nil {
		return nil, err
	}
	return c, nil
}

// maskSet validates screenshot mask selectors. A selector becomes one CSS
// rule in the page, so characters that could end the rule or the style
// element are refused.
func maskSet(sels []string) ([]string, error) {
	if len(sels) > maxMaskSelectors {
		return nil, fmt.Errorf("%w: more than %d mask_selectors", ErrPolicy, maxMaskSelectors)
	}
	out := make([]string, 0, len(sels))
	for i, s := range sels {
		s = strings.TrimSpace(s)
		if s == "" || len(s) > maxSelectorLen || strings.ContainsAny(s, "{};<>\\\n\r") || strings.Contains(s, "/*") {
			return nil, fmt.Errorf("%w: mask_selectors[%d] must be a CSS selector of at most %d bytes without { } ; < > \\ or comments", ErrPolicy, i, maxSelectorLen)
		}
		out = append(out, s)
	}
	return out, nil
}

// literalOf parses expr (already compiled) for requiredLiteral.
func literalOf(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	return requiredLiteral(re.Simplify())
}

// keySet normalizes a list of key names.
func keySet(field string, names []string) (map[string]bool, error) {
	if len(names) > maxNamedKeys {
		return nil, fmt.Errorf("%w: more than %d %s", ErrPolicy, maxNamedKeys, field)
	}
	m := make(map[string]bool, len(names))
	for i, n := range names {
		k := normalizeKey(n)
		if k == "" {
			return nil, fmt.Errorf("%w: %s[%d] is empty", ErrPolicy, field, i)
		}
		m[k] = true
	}
	return m, nil
}

// validLabel reports whether l is a usable marker label.
func validLabel(l string) bool {
	if l == "" || len(l) > maxLabelLen || l[0] < 'a' || l[0] > 'z' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
