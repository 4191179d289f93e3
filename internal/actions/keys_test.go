package actions

import (
	"reflect"
	"testing"
)

func TestParseKeys(t *testing.T) {
	type pressed struct {
		mods       int
		key, code  string
		keyCode    int64
		typedKey   string
		typedText  string
		canonical  string
		selectsAll bool
	}
	for _, c := range []struct {
		in   string
		want []pressed
	}{
		{"Enter", []pressed{{0, "Enter", "Enter", 13, "Enter", "\r", "Enter", false}}},
		{"enter", []pressed{{0, "Enter", "Enter", 13, "Enter", "\r", "Enter", false}}},
		{"Control+A", []pressed{{ModCtrl, "a", "KeyA", 65, "a", "", "Control+a", true}}},
		{"Ctrl+k", []pressed{{ModCtrl, "k", "KeyK", 75, "k", "", "Control+k", false}}},
		{"Meta+a", []pressed{{ModMeta, "a", "KeyA", 65, "a", "", "Meta+a", true}}},
		{"Shift+Tab", []pressed{{ModShift, "Tab", "Tab", 9, "Tab", "", "Shift+Tab", false}}},
		{"A", []pressed{{ModShift, "a", "KeyA", 65, "A", "A", "Shift+a", false}}},
		{"Shift+1", []pressed{{ModShift, "1", "Digit1", 49, "!", "!", "Shift+1", false}}},
		{"?", []pressed{{ModShift, "/", "Slash", 191, "?", "?", "Shift+/", false}}},
		{"Control+Shift+ArrowLeft", []pressed{{ModCtrl | ModShift, "ArrowLeft", "ArrowLeft", 37, "ArrowLeft", "", "Control+Shift+ArrowLeft", false}}},
		{"Cmd+Option+Esc", []pressed{{ModMeta | ModAlt, "Escape", "Escape", 27, "Escape", "", "Alt+Meta+Escape", false}}},
		{"Space", []pressed{{0, " ", "Space", 32, " ", " ", "Space", false}}},
		{" ", []pressed{{0, " ", "Space", 32, " ", " ", "Space", false}}},
		{"Control++", []pressed{{ModCtrl | ModShift, "=", "Equal", 187, "+", "", "Control+Shift+=", false}}},
		{"F5", []pressed{{0, "F5", "F5", 116, "F5", "", "F5", false}}},
		{"Shift", []pressed{{0, "Shift", "ShiftLeft", 16, "Shift", "", "Shift", false}}},
		{"é", []pressed{{0, "é", "", 0, "é", "é", "é", false}}},
		{"Tab Tab Enter", []pressed{
			{0, "Tab", "Tab", 9, "Tab", "", "Tab", false},
			{0, "Tab", "Tab", 9, "Tab", "", "Tab", false},
			{0, "Enter", "Enter", 13, "Enter", "\r", "Enter", false}}},
	} {
		t.Run(c.in, func(t *testing.T) {
			chords, err := ParseKeys(c.in)
			if err != nil {
				t.Fatalf("ParseKeys(%q): %v", c.in, err)
			}
			var got []pressed
			for _, ch := range chords {
				k, text := ch.Typed()
				got = append(got, pressed{ch.Mods, ch.Key.Key, ch.Key.Code, ch.Key.KeyCode, k, text, ch.String(), len(ch.Commands()) > 0})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseKeys(%q)\n got %+v\nwant %+v", c.in, got, c.want)
			}
		})
	}
}

func TestParseKeysErrors(t *testing.T) {
	for _, in := range []string{"", "   ", "Control+", "Enter+Control", "Control+Nope", "Hyper+a", "a+b"} {
		if got, err := ParseKeys(in); err == nil {
			t.Errorf("ParseKeys(%q) = %+v, want an error", in, got)
		}
	}
}
