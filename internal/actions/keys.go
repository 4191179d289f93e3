package actions

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Modifier bits of CDP Input events.
const (
	ModAlt   = 1
	ModCtrl  = 2
	ModMeta  = 4
	ModShift = 8
)

// Key is one physical key on a US layout, as Input.dispatchKeyEvent
// describes it.
type Key struct {
	Key      string // DOM key ("a", "Enter", "Control")
	Code     string // DOM code ("KeyA", "Enter", "ControlLeft")
	KeyCode  int64  // Windows virtual key code
	Text     string // text the key types without modifiers ("" for none)
	Shifted  string // key and text with Shift held ("" when Shift changes nothing)
	Location int64  // 1 left, 2 right, 3 numpad
}

// Chord is one key pressed with modifiers: Control+Shift+K.
type Chord struct {
	Mods int // ModAlt|ModCtrl|ModMeta|ModShift
	Key  Key
}

var modifierKeys = map[string]struct {
	bit int
	key Key
}{
	"Alt":     {ModAlt, Key{Key: "Alt", Code: "AltLeft", KeyCode: 18, Location: 1}},
	"Control": {ModCtrl, Key{Key: "Control", Code: "ControlLeft", KeyCode: 17, Location: 1}},
	"Meta":    {ModMeta, Key{Key: "Meta", Code: "MetaLeft", KeyCode: 91, Location: 1}},
	"Shift":   {ModShift, Key{Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Location: 1}},
}

// ModifierKey returns the key of a modifier bit.
func ModifierKey(bit int) Key {
	for _, m := range modifierKeys {
		if m.bit == bit {
			return m.key
		}
	}
	return Key{}
}

var aliases = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta",
		"super": "Meta", "win": "Meta", "os": "Meta", "alt": "Alt", "option": "Alt", "opt": "Alt",
		"shift": "Shift", "esc": "Escape", "return": "Enter", "del": "Delete", "ins": "Insert",
		"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
		"pgup": "PageUp", "pgdn": "PageDown", "space": " ", "spacebar": " ", "plus": "+",
		"bksp": "Backspace",
	}
})

// punctuation on a US layout: unshifted, shifted, code, key code.
var punct = sync.OnceValue(func() [][4]any {
	return [][4]any{
		{"`", "~", "Backquote", 192}, {"-", "_", "Minus", 189}, {"=", "+", "Equal", 187},
		{"[", "{", "BracketLeft", 219}, {"]", "}", "BracketRight", 221}, {`\`, "|", "Backslash", 220},
		{";", ":", "Semicolon", 186}, {"'", `"`, "Quote", 222}, {",", "<", "Comma", 188},
		{".", ">", "Period", 190}, {"/", "?", "Slash", 191},
	}
})

const digitShifts = ")!@#$%^&*("

// keyTables are the key maps, built on first use rather than at package
// init (the modes of gasoline-host that never press a key never build
// them): named keys by DOM key name, and every printable US-layout
// character (a shifted one maps to its key with Shifted set, and
// needsShift reports it).
type keyTables struct {
	named      map[string]Key
	chars      map[string]Key
	needsShift map[string]bool
}

var keys = sync.OnceValue(func() keyTables {
	t := keyTables{named: map[string]Key{
		"Enter":       {Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"},
		"Tab":         {Key: "Tab", Code: "Tab", KeyCode: 9},
		"Backspace":   {Key: "Backspace", Code: "Backspace", KeyCode: 8},
		"Delete":      {Key: "Delete", Code: "Delete", KeyCode: 46},
		"Escape":      {Key: "Escape", Code: "Escape", KeyCode: 27},
		" ":           {Key: " ", Code: "Space", KeyCode: 32, Text: " "},
		"ArrowUp":     {Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38},
		"ArrowDown":   {Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40},
		"ArrowLeft":   {Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37},
		"ArrowRight":  {Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39},
		"Home":        {Key: "Home", Code: "Home", KeyCode: 36},
		"End":         {Key: "End", Code: "End", KeyCode: 35},
		"PageUp":      {Key: "PageUp", Code: "PageUp", KeyCode: 33},
		"PageDown":    {Key: "PageDown", Code: "PageDown", KeyCode: 34},
		"Insert":      {Key: "Insert", Code: "Insert", KeyCode: 45},
		"CapsLock":    {Key: "CapsLock", Code: "CapsLock", KeyCode: 20},
		"ContextMenu": {Key: "ContextMenu", Code: "ContextMenu", KeyCode: 93},
	}, chars: map[string]Key{}, needsShift: map[string]bool{}}
	for c := 'a'; c <= 'z'; c++ {
		lo, up := string(c), strings.ToUpper(string(c))
		k := Key{Key: lo, Code: "Key" + up, KeyCode: int64(c - 'a' + 65), Text: lo, Shifted: up}
		t.chars[lo], t.chars[up], t.needsShift[up] = k, k, true
	}
	for d := '0'; d <= '9'; d++ {
		s := string(d)
		sh := string(digitShifts[d-'0'])
		k := Key{Key: s, Code: "Digit" + s, KeyCode: int64(d - '0' + 48), Text: s, Shifted: sh}
		t.chars[s], t.chars[sh], t.needsShift[sh] = k, k, true
	}
	for _, p := range punct() {
		lo, up := p[0].(string), p[1].(string)
		k := Key{Key: lo, Code: p[2].(string), KeyCode: int64(p[3].(int)), Text: lo, Shifted: up}
		t.chars[lo], t.chars[up], t.needsShift[up] = k, k, true
	}
	for i := 1; i <= 12; i++ {
		n := fmt.Sprintf("F%d", i)
		t.named[n] = Key{Key: n, Code: n, KeyCode: int64(111 + i)}
	}
	return t
})

// ParseKeys reads `keys`: one chord ("Enter", "Control+A", "Shift+Tab",
// "Meta+Shift+K") or several separated by spaces ("Tab Tab Enter"). Key
// names follow the DOM (Enter, Escape, ArrowDown, F5, a, A, 1, /) with the
// usual aliases (Ctrl, Cmd, Esc, Return, Up, Space, Plus).
func ParseKeys(s string) ([]Chord, error) {
	if s == " " {
		return []Chord{{Key: keys().named[" "]}}, nil
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return nil, fmt.Errorf("keys is empty; give a key or chord such as Enter or Control+A")
	}
	out := make([]Chord, 0, len(fields))
	for _, f := range fields {
		c, err := parseChord(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func parseChord(s string) (Chord, error) {
	parts := strings.Split(s, "+")
	if strings.HasSuffix(s, "++") || s == "+" { // the + key itself
		parts = append(parts[:len(parts)-2], "+")
	}
	var c Chord
	for i, p := range parts {
		if p == "" {
			return c, fmt.Errorf("malformed chord %q: use names joined by +, e.g. Control+Shift+K", s)
		}
		name := canonical(p)
		if m, ok := modifierKeys[name]; ok {
			if i == len(parts)-1 { // a modifier pressed alone
				c.Key = m.key
				break
			}
			c.Mods |= m.bit
			continue
		}
		if i != len(parts)-1 {
			return c, fmt.Errorf("in %q, %q is not a modifier (Control, Shift, Alt, Meta); the key goes last", s, p)
		}
		k, shift, err := lookupKey(name)
		if err != nil {
			return c, err
		}
		// An upper-case letter implies Shift when typed alone (A); in a
		// chord with Control, Alt or Meta it names the key (Control+A).
		letter := len(k.Code) == 4 && strings.HasPrefix(k.Code, "Key")
		if shift && !(letter && c.Mods&(ModCtrl|ModAlt|ModMeta) != 0) {
			c.Mods |= ModShift
		}
		c.Key = k
	}
	return c, nil
}

// canonical applies aliases and the DOM spelling of named keys
// (case-insensitive: "enter", "ENTER" → Enter).
func canonical(p string) string {
	if a, ok := aliases()[strings.ToLower(p)]; ok {
		return a
	}
	if utf8.RuneCountInString(p) == 1 {
		return p
	}
	for n := range keys().named {
		if strings.EqualFold(n, p) {
			return n
		}
	}
	for n := range modifierKeys {
		if strings.EqualFold(n, p) {
			return n
		}
	}
	return p
}

func lookupKey(name string) (Key, bool, error) {
	t := keys()
	if k, ok := t.named[name]; ok {
		return k, false, nil
	}
	if k, ok := t.chars[name]; ok {
		return k, t.needsShift[name], nil
	}
	if utf8.RuneCountInString(name) == 1 { // a character off the US layout: typed as text
		return Key{Key: name, Text: name}, false, nil
	}
	return Key{}, false, fmt.Errorf("unknown key %q: use a DOM key name such as Enter, Tab, Escape, ArrowDown, Backspace, F5, or one character", name)
}

// Typed returns the key and text the chord produces: Shift picks the
// shifted character; Control, Alt and Meta produce no text.
func (c Chord) Typed() (key, text string) {
	key, text = c.Key.Key, c.Key.Text
	if c.Mods&ModShift != 0 && c.Key.Shifted != "" {
		key, text = c.Key.Shifted, c.Key.Shifted
	}
	if c.Mods&(ModCtrl|ModAlt|ModMeta) != 0 {
		text = ""
	}
	return key, text
}

// Commands returns the editing commands a chord stands for where Chrome
// does not bind them itself (Meta+A on macOS): only selectAll, which is
// harmless to run twice.
func (c Chord) Commands() []string {
	if c.Key.Code == "KeyA" && c.Mods&(ModCtrl|ModMeta) != 0 && c.Mods&(ModAlt|ModShift) == 0 {
		return []string{"selectAll"}
	}
	return nil
}

// String writes the chord back: Control+Shift+K.
func (c Chord) String() string {
	var b strings.Builder
	for _, m := range []struct {
		bit  int
		name string
	}{{ModCtrl, "Control"}, {ModAlt, "Alt"}, {ModMeta, "Meta"}, {ModShift, "Shift"}} {
		if c.Mods&m.bit != 0 && c.Key.Key != m.name {
			b.WriteString(m.name + "+")
		}
	}
	k := c.Key.Key
	if k == " " {
		k = "Space"
	}
	b.WriteString(k)
	return b.String()
}
