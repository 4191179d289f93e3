package redact

import (
	"fmt"
	"strings"
	"sync"
)

// Engine applies one compiled policy. It is immutable and safe for
// concurrent use; the same engine serves every stage. A nil *Engine blocks
// every call with [ErrBlocked], so a caller whose policy failed to load
// cannot pass output through by accident.
type Engine struct {
	c    *compiled
	keys sync.Map // key name → keyVerdict; bounded by keyCacheMax
	nkey int64    // number of cached names (guarded by mu)
	mu   sync.Mutex
}

// keyVerdict is a cached classifyKey result.
type keyVerdict struct {
	rule keyRule
	ok   bool
}

// keyCacheMax bounds the key-name cache; names longer than keyCacheLen are
// never cached.
const (
	keyCacheMax = 8192
	keyCacheLen = 64
)

// maxDepth bounds nesting: JSON and Go values deeper than this are blocked,
// and text embedded in text (JSON inside a string, a form value inside a
// URL) is unpacked at most maxEmbed times.
const (
	maxDepth = 10000
	maxEmbed = 4
)

// New validates and compiles p. An invalid policy (missing version, unknown
// class, bad user regex, …) is an error wrapping [ErrPolicy].
func New(p Policy) (*Engine, error) {
	c, err := compile(p)
	if err != nil {
		return nil, err
	}
	return &Engine{c: c}, nil
}

// PolicyVersion returns the version of the engine's policy ("" for nil).
func (e *Engine) PolicyVersion() string {
	if e == nil {
		return ""
	}
	return e.c.version
}

// MaskSelectors returns the policy's screenshot mask selectors (a copy).
func (e *Engine) MaskSelectors() []string {
	if e == nil {
		return nil
	}
	return append([]string(nil), e.c.masks...)
}

// MaxInputBytes returns the cap on one input.
func (e *Engine) MaxInputBytes() int64 {
	if e == nil {
		return 0
	}
	return e.c.maxInput
}

// Text redacts free text: console messages, titles, bodies of unknown type,
// URLs in prose. A text that is a whole JSON document is walked as JSON.
func (e *Engine) Text(s string) (out string, st Stats, err error) {
	if err := e.check(len(s)); err != nil {
		return "", Stats{}, err
	}
	defer recoverInto(&err, &st)
	out = e.text(s, &st, 0)
	return out, st, nil
}

// check applies the fail-closed preconditions to an input of n bytes.
func (e *Engine) check(n int) error {
	if e == nil || e.c == nil {
		return fmt.Errorf("%w: no redaction engine (policy not loaded)", ErrBlocked)
	}
	if int64(n) > e.c.maxInput {
		return fmt.Errorf("%w: input of %d bytes exceeds the %d-byte limit", ErrBlocked, n, e.c.maxInput)
	}
	return nil
}

// recoverInto turns a panic inside the engine into ErrBlocked. The panic
// value is dropped: it may quote the input.
func recoverInto(err *error, st *Stats) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: internal error in the redaction engine", ErrBlocked)
		*st = Stats{}
	}
}

// on reports whether a label is enabled by the policy.
func (e *Engine) on(label string) bool { return !e.c.disabled[label] }

// rule classifies a key name, honouring disabled classes and caching the
// verdict for short names without digits (a name with digits is most often
// generated — a snapshot ref, a request or tab id — and met once: cached,
// they filled the cache with names never asked again).
func (e *Engine) rule(name string) (keyRule, bool) {
	cacheable := len(name) <= keyCacheLen && !strings.ContainsAny(name, "0123456789")
	if cacheable {
		if v, ok := e.keys.Load(name); ok {
			kv := v.(keyVerdict)
			return kv.rule, kv.ok
		}
	}
	r, ok := e.c.classifyKey(name)
	if ok && !e.on(r.label) && r.kind != kindAuth {
		ok = false
	}
	if cacheable {
		e.mu.Lock()
		if e.nkey < keyCacheMax {
			e.nkey++
			// A clone: name may be a slice of a large document.
			e.keys.Store(strings.Clone(name), keyVerdict{r, ok})
		}
		e.mu.Unlock()
	}
	return r, ok
}
