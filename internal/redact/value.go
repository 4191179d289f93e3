package redact

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
)

// Value redacts a decoded Go value with the same rules as [Engine.JSON]
// and returns a new value; v itself is never modified. It understands
// map[string]any, []any, string, bool, nil, json.Number, the numeric types,
// map[string]string, []string, json.RawMessage, []byte (as text) and
// http.Header, and keeps their types — except that a number or container
// under a secret name becomes the marker string. Any other value (a struct,
// a pointer) is marshalled with encoding/json, redacted as JSON and returned
// as a json.RawMessage. Input over the size cap (counting string bytes),
// nesting deeper than 10,000 or a value that cannot be marshalled is
// blocked with an error wrapping [ErrBlocked].
func (e *Engine) Value(v any) (out any, st Stats, err error) {
	if err := e.check(0); err != nil {
		return nil, Stats{}, err
	}
	defer recoverInto(&err, &st)
	w := &vwalk{e: e, st: &st, budget: e.c.maxInput}
	out, err = w.value(v, false, 0)
	if err != nil {
		return nil, Stats{}, err
	}
	return out, st, nil
}

// vwalk is one Value call: its stats and the bytes it may still read.
type vwalk struct {
	e      *Engine
	st     *Stats
	budget int64
}

// spend charges n bytes of input against the size cap.
func (w *vwalk) spend(n int) error {
	w.budget -= int64(n)
	if w.budget < 0 {
		return fmt.Errorf("%w: input exceeds the %d-byte limit", ErrBlocked, w.e.c.maxInput)
	}
	return nil
}

func (w *vwalk) value(v any, cookie bool, nest int) (any, error) {
	if nest > maxDepth {
		return nil, fmt.Errorf("%w: value nested deeper than %d", ErrBlocked, maxDepth)
	}
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case string:
		if err := w.spend(len(x)); err != nil {
			return nil, err
		}
		if cookie {
			return w.e.secretValue(cookieRule, x, w.st, 0), nil
		}
		return w.e.text(x, w.st, 0), nil
	case []byte:
		if err := w.spend(len(x)); err != nil {
			return nil, err
		}
		return []byte(w.e.text(string(x), w.st, 0)), nil
	case json.RawMessage:
		if err := w.spend(len(x)); err != nil {
			return nil, err
		}
		return json.RawMessage(w.e.jsonOrText(x, w.st)), nil
	case map[string]any:
		return w.object(x, cookie, nest)
	case []any:
		return w.array(x, cookie, nest)
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return w.object(m, cookie, nest)
	case []string:
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return w.array(a, cookie, nest)
	case http.Header:
		return w.header(x)
	}
	if s, ok := numberText(v); ok {
		if out := w.e.plain(s, w.st, 0); out != s {
			return out, nil
		}
		return v, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot marshal a %T for redaction", ErrBlocked, v)
	}
	if err := w.spend(len(raw)); err != nil {
		return nil, err
	}
	return json.RawMessage(w.e.jsonOrText(raw, w.st)), nil
}

// jsonOrText redacts raw as JSON when valid, else as text.
func (e *Engine) jsonOrText(raw []byte, st *Stats) []byte {
	s := string(raw)
	if doc, ok := parseDoc(s); ok {
		return []byte(e.walkJSON(s, &doc, st, 1))
	}
	return []byte(e.notJSON(s, st, 0))
}

// numberText formats a number so card numbers stored as numbers are seen.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32), true
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8, int16, int32, int64:
		return fmt.Sprint(x), true
	case uint, uint8, uint16, uint32, uint64, uintptr:
		return fmt.Sprint(x), true
	}
	return "", false
}

// object redacts a map, planning in sorted key order so that output and
// counts are deterministic. A key that redaction turns into one already
// present gets a "#2", "#3", … suffix instead of overwriting it.
func (w *vwalk) object(x map[string]any, cookie bool, nest int) (any, error) {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ms := make([]member, len(keys))
	for i, k := range keys {
		if err := w.spend(len(k)); err != nil {
			return nil, err
		}
		ms[i] = w.describe(true, k, x[k], i, len(keys))
	}
	acts := w.e.planObject(ms, cookie, nil)
	out := make(map[string]any, len(x))
	for i, k := range keys {
		v, err := w.apply(x[k], &ms[i], acts[i], nest)
		if err != nil {
			return nil, err
		}
		nk := ms[i].key
		for n := 2; ; n++ {
			if _, dup := out[nk]; !dup {
				break
			}
			nk = ms[i].key + "#" + strconv.Itoa(n)
		}
		out[nk] = v
	}
	return out, nil
}

func (w *vwalk) array(x []any, cookie bool, nest int) (any, error) {
	ms := make([]member, len(x))
	for i, v := range x {
		ms[i] = w.describe(false, "", v, i, len(x))
	}
	acts := w.e.planArray(ms, cookie, nil)
	out := make([]any, len(x))
	for i, v := range x {
		r, err := w.apply(v, &ms[i], acts[i], nest)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// describe builds the planning view of one member (see member): the key
// and a possible pair name are redacted here, once.
func (w *vwalk) describe(obj bool, key string, v any, k, n int) member {
	m := member{rawKey: key}
	if obj {
		m.key = w.e.text(key, w.st, 0)
	}
	switch x := v.(type) {
	case string:
		m.str, m.isStr = x, true
		if pairNameCandidate(obj, m.key, k, n) {
			m.rawStr, m.redacted = x, true
			m.str = w.e.text(x, w.st, 0)
		}
	case map[string]any, []any, map[string]string, []string, http.Header, json.RawMessage:
		m.composite = true
	case nil, bool, json.Number, float64, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
	default:
		m.composite = true
	}
	return m
}

// apply redacts one member's value as its action says.
func (w *vwalk) apply(v any, m *member, a action, nest int) (any, error) {
	switch {
	case a.cookie:
		return w.value(v, true, nest+1)
	case !a.secret && m.redacted:
		return m.str, nil
	case !a.secret:
		return w.value(v, false, nest+1)
	}
	switch x := v.(type) {
	case nil, bool:
		return x, nil
	case string:
		if err := w.spend(len(x)); err != nil {
			return nil, err
		}
		return w.e.secretValue(a.rule, x, w.st, 0), nil
	}
	w.st.add(a.rule.label, 1)
	return Marker(a.rule.label), nil
}

// header redacts an http.Header value by value.
func (w *vwalk) header(h http.Header) (http.Header, error) {
	out := make(http.Header, len(h))
	for name, vals := range h {
		r, secret := w.e.rule(name)
		nv := make([]string, len(vals))
		for i, v := range vals {
			if err := w.spend(len(name) + len(v)); err != nil {
				return nil, err
			}
			if secret {
				nv[i] = w.e.secretValue(r, v, w.st, 0)
			} else {
				nv[i] = w.e.text(v, w.st, 0)
			}
		}
		out[name] = nv
	}
	return out, nil
}
