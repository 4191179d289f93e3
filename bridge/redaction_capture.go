package bridge

import (
	"fmt"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/redact"
)

// captureRedactor is the server stage for captured entries (SAFETY.md,
// stage 2): every text and URL field of an entry is redacted before the
// entry is stored. Counts go to the daemon's total (captured entries
// belong to tabs, not sessions). An error drops the entry: capture fails
// closed. The native host's source stage reports its own counts
// (redaction.counts, onRedactionCounts); markers it left in an entry are
// not counted again here.
func (s *Server) captureRedactor(kind string, v any) (any, error) {
	e, err := s.safe.red.store.Engine()
	if err != nil {
		s.safe.red.count("", redact.StageServer, redact.Stats{}, err)
		return nil, err
	}
	w := &entryWalk{redact.Fields{E: e}}
	out := w.entry(v)
	if w.Err == nil && out == nil {
		w.Err = fmt.Errorf("%w: no redaction rule for a %T entry", redact.ErrBlocked, v)
	}
	s.safe.red.count("", redact.StageServer, w.Stats, w.Err)
	if w.Err != nil {
		return nil, w.Err
	}
	return out, nil
}

// entryWalk redacts the fields of one entry, keeping the first error.
type entryWalk struct{ redact.Fields }

func (w *entryWalk) entry(v any) any {
	switch x := v.(type) {
	case capture.ConsoleEntry:
		w.Text(&x.Text)
		w.URL(&x.URL)
		x.Stack = w.frames(x.Stack)
		return x
	case capture.Exception:
		w.Text(&x.Message)
		w.URL(&x.URL)
		x.Stack = w.frames(x.Stack)
		return x
	case capture.Request:
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
	case capture.WebSocketEvent:
		w.URL(&x.URL)
		if !x.Binary {
			w.Text(&x.Payload)
		}
		w.Text(&x.Error)
		return x
	case capture.Dialog:
		w.URL(&x.URL)
		w.Strings(&x.Message, &x.DefaultPrompt, &x.UserInput)
		return x
	case capture.Navigation:
		w.URL(&x.URL)
		return x
	}
	return nil
}

// frames returns redacted copies of stack frames.
func (w *entryWalk) frames(in []capture.Frame) []capture.Frame {
	if in == nil {
		return nil
	}
	fs := append([]capture.Frame(nil), in...)
	for i := range fs {
		w.URL(&fs[i].URL)
		w.Text(&fs[i].Function)
	}
	return fs
}
