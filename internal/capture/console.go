package capture

import (
	"errors"
	"strings"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/tidwall/gjson"
)

// errMalformed reports params that are not the event's JSON shape.
var errMalformed = errors.New("capture: malformed event params")

// decodeOpts makes cdproto's decoder (encoding/json/v2 semantics) accept the
// invalid UTF-8 and lone surrogates that page strings can carry, replacing
// them with U+FFFD instead of dropping the whole event.
var decodeOpts = jsonv2.AllowInvalidUTF8(true)

// decode unmarshals CDP params into a cdproto event struct with cdproto's
// own JSON layer.
func decode(p []byte, v any) error {
	if err := jsonv2.Unmarshal(p, v, decodeOpts); err != nil {
		return errors.Join(errMalformed, err)
	}
	return nil
}

// onConsole records Runtime.consoleAPICalled. This is the hot path under a
// log flood, so it reads the params with gjson in one pass instead of
// decoding a runtime.EventConsoleAPICalled (see BenchmarkDecodeConsole*):
// the fields read are exactly the cdproto struct's.
func (t *tab) onConsole(p []byte) error {
	if !gjson.ValidBytes(p) {
		return errMalformed
	}
	var typ, args, ts, stack gjson.Result
	gjson.ParseBytes(p).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "args":
			args = v
		case "timestamp":
			ts = v
		case "stackTrace":
			stack = v
		}
		return true
	})
	if typ.Type != gjson.String || !args.IsArray() {
		return errMalformed
	}
	o := t.opts
	e := ConsoleEntry{Type: consoleType(typ.Str), Time: t.msTime(ts.Num)}
	e.Level = consoleLevel(e.Type)
	e.Text, e.Truncated = formatArgs(args.Array(), o.MaxTextBytes)
	var frames []Frame
	if keepsStack(e.Type) {
		frames = gjsonFrames(stack, o.MaxStackFrames, o.MaxURLBytes, &e.Truncated)
		e.Stack = frames
	} else {
		var more bool // only the top frame is wanted, for the location
		frames = gjsonFrames(stack, 1, o.MaxURLBytes, &more)
	}
	if len(frames) > 0 {
		e.URL, e.Line, e.Column = frames[0].URL, frames[0].Line, frames[0].Column
	}
	e, ok := store(t, t.console, kConsole, e)
	if ok && e.Level == "error" {
		t.noteError(kConsole, e.Text, e.Time, e.URL, e.Line, e.Column, e.Stack, e.Order)
	}
	return nil
}

// consoleTypes maps CDP's console call types to static strings, so entries
// do not pin the params buffer.
var consoleTypes = func() map[string]string {
	m := make(map[string]string)
	for _, t := range []runtime.ConsoleAPICalledType{
		runtime.ConsoleAPICalledTypeLog, runtime.ConsoleAPICalledTypeDebug, runtime.ConsoleAPICalledTypeInfo,
		runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeWarning, runtime.ConsoleAPICalledTypeDir,
		runtime.ConsoleAPICalledTypeDirxml, runtime.ConsoleAPICalledTypeTable, runtime.ConsoleAPICalledTypeTrace,
		runtime.ConsoleAPICalledTypeClear, runtime.ConsoleAPICalledTypeStartGroup,
		runtime.ConsoleAPICalledTypeStartGroupCollapsed, runtime.ConsoleAPICalledTypeEndGroup,
		runtime.ConsoleAPICalledTypeAssert, runtime.ConsoleAPICalledTypeProfile,
		runtime.ConsoleAPICalledTypeProfileEnd, runtime.ConsoleAPICalledTypeCount,
		runtime.ConsoleAPICalledTypeTimeEnd,
	} {
		m[string(t)] = string(t)
	}
	return m
}()

func consoleType(s string) string {
	if c, ok := consoleTypes[s]; ok {
		return c
	}
	s, _ = truncate(s, 32)
	return strings.Clone(s)
}

// consoleLevel maps a console call type to the level DevTools files it under.
func consoleLevel(typ string) string {
	switch typ {
	case "error", "assert":
		return "error"
	case "warning":
		return "warning"
	case "info":
		return "info"
	case "debug":
		return "debug"
	}
	return "log"
}

// keepsStack reports the console calls whose stack is worth keeping.
func keepsStack(typ string) bool {
	switch typ {
	case "error", "warning", "assert", "trace":
		return true
	}
	return false
}

// gjsonFrames converts the callFrames of a Runtime.StackTrace to at most
// maxFrames frames, setting *cut when it leaves frames out.
func gjsonFrames(stack gjson.Result, maxFrames, maxURL int, cut *bool) []Frame {
	var out []Frame
	stack.Get("callFrames").ForEach(func(_, f gjson.Result) bool {
		if len(out) == maxFrames {
			*cut = true
			return false
		}
		var fr Frame
		f.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "functionName":
				fr.Function = clip(v.Str, maxURL, cut)
			case "url":
				fr.URL = clip(v.Str, maxURL, cut)
			case "lineNumber":
				fr.Line = int(v.Int()) + 1
			case "columnNumber":
				fr.Column = int(v.Int()) + 1
			}
			return true
		})
		out = append(out, fr)
		return true
	})
	return out
}

// onException records Runtime.exceptionThrown.
func (t *tab) onException(p []byte) error {
	var ev runtime.EventExceptionThrown
	if err := decode(p, &ev); err != nil {
		return err
	}
	d := ev.ExceptionDetails
	if d == nil {
		return errMalformed
	}
	o := t.opts
	e := Exception{Time: t.msTime(float64(ev.Timestamp))}
	msg, cut := truncate(exceptionMessage(d), o.MaxTextBytes)
	e.Message, e.Truncated = strings.Clone(msg), cut
	e.Stack = cdpFrames(d.StackTrace, o.MaxStackFrames, o.MaxURLBytes, &e.Truncated)
	e.URL = clip(d.URL, o.MaxURLBytes, &e.Truncated)
	e.Line, e.Column = int(d.LineNumber)+1, int(d.ColumnNumber)+1
	if e.URL == "" && len(e.Stack) > 0 {
		e.URL, e.Line, e.Column = e.Stack[0].URL, e.Stack[0].Line, e.Stack[0].Column
	}
	e, ok := store(t, t.exceptions, kException, e)
	if ok {
		t.noteError(kException, e.Message, e.Time, e.URL, e.Line, e.Column, e.Stack, e.Order)
	}
	return nil
}

// exceptionMessage builds DevTools' one-line message: the details' text
// ("Uncaught", "Uncaught (in promise)") and the first line of the thrown
// value's description.
func exceptionMessage(d *runtime.ExceptionDetails) string {
	var what string
	if x := d.Exception; x != nil {
		switch {
		case x.Description != "":
			what = firstLine(x.Description)
		case x.UnserializableValue != "":
			what = string(x.UnserializableValue)
		case len(x.Value) > 0:
			what = gjson.ParseBytes(x.Value).String()
		}
	}
	switch {
	case what == "":
		return d.Text
	case d.Text == "":
		return what
	case strings.Contains(d.Text, what): // older Chrome: "Uncaught Error: boom"
		return d.Text
	}
	return d.Text + " " + what
}

// cdpFrames converts a cdproto stack trace to frames.
func cdpFrames(st *runtime.StackTrace, maxFrames, maxURL int, cut *bool) []Frame {
	if st == nil || len(st.CallFrames) == 0 {
		return nil
	}
	n := min(len(st.CallFrames), maxFrames)
	*cut = *cut || n < len(st.CallFrames)
	out := make([]Frame, 0, n)
	for _, f := range st.CallFrames[:n] {
		if f == nil {
			continue
		}
		out = append(out, Frame{
			Function: clip(f.FunctionName, maxURL, cut),
			URL:      clip(f.URL, maxURL, cut),
			Line:     int(f.LineNumber) + 1,
			Column:   int(f.ColumnNumber) + 1,
		})
	}
	return out
}
