package capture

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// RedactEntry returns a copy of a captured entry with every text and URL
// field passed through f (the server stage, SAFETY.md stage 2). An entry
// type without a rule here is refused: capture fails closed, so a new
// entry type cannot be stored unredacted. The first error sticks in f.
func RedactEntry(f *redact.Fields, v any) (any, error) {
	w := &entryWalk{f}
	out := w.entry(v)
	if f.Err == nil && out == nil {
		f.Err = fmt.Errorf("%w: no redaction rule for a %T entry", redact.ErrBlocked, v)
	}
	if f.Err != nil {
		return nil, f.Err
	}
	return out, nil
}

// entryWalk redacts the fields of one entry, keeping the first error.
type entryWalk struct{ *redact.Fields }

func (w *entryWalk) entry(v any) any {
	switch x := v.(type) {
	case ConsoleEntry:
		w.Text(&x.Text)
		w.URL(&x.URL)
		x.Stack = w.frames(x.Stack)
		return x
	case Exception:
		w.Text(&x.Message)
		w.URL(&x.URL)
		x.Stack = w.frames(x.Stack)
		return x
	case Request:
		w.URL(&x.URL)
		w.URL(&x.InitiatorURL)
		w.Strings(&x.StatusText, &x.ErrorText)
		if x.Headers != nil {
			h := make(map[string]string, len(x.Headers))
			for k, v := range x.Headers {
				w.Text(&v)
				h[k] = v
			}
			x.Headers = h
		}
		return x
	case WebSocketEvent:
		w.URL(&x.URL)
		if !x.Binary {
			w.Text(&x.Payload)
		}
		w.Text(&x.Error)
		return x
	case Dialog:
		w.URL(&x.URL)
		w.Strings(&x.Message, &x.DefaultPrompt, &x.UserInput)
		return x
	case Navigation:
		w.URL(&x.URL)
		return x
	case Action:
		w.URL(&x.URL)
		w.URL(&x.Frame)
		w.Text(&x.Value)
		w.Strings(&x.Selector, &x.Target, &x.Keys)
		return x
	}
	return nil
}

// frames returns redacted copies of stack frames.
func (w *entryWalk) frames(in []Frame) []Frame {
	if in == nil {
		return nil
	}
	fs := append([]Frame(nil), in...)
	for i := range fs {
		w.URL(&fs[i].URL)
		w.Text(&fs[i].Function)
	}
	return fs
}
