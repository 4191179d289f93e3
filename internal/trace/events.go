package trace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Event is one trace event, as Chrome's JSON trace format writes it
// (times in microseconds of the trace clock).
type Event struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  int64           `json:"pid"`
	Tid  int64           `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// end is when a complete event ends.
func (e *Event) end() float64 { return e.Ts + e.Dur }

// kept are the events the insights read; the rest of a trace (samples,
// compositor frames, GC phases …) is skipped while parsing.
var kept = map[string]bool{
	"thread_name": true, "navigationStart": true, "firstContentfulPaint": true, "MarkDOMContent": true, "MarkLoad": true,
	"largestContentfulPaint::Candidate": true, "LargestImagePaint::Candidate": true,
	"ResourceWillSendRequest": true, "ResourceSendRequest": true, "ResourceReceiveResponse": true, "ResourceFinish": true,
	"LayoutShift": true, "LayoutImageUnsized": true, "PaintImage": true, "PrePaint": true,
	"RunTask": true, "EvaluateScript": true, "FunctionCall": true, "TimerFire": true, "EventDispatch": true,
	"FireAnimationFrame": true, "v8.compile": true, "v8.compileModule": true, "ParseHTML": true, "EventTiming": true,
}

// MaxTraceBytes bounds a trace Gasoline parses (the raw file is kept
// whole; past it the insights say so).
const MaxTraceBytes = 200 << 20

// Parse reads a trace (JSON, gzip-compressed or not; the object form
// {"traceEvents": [...]} or a bare array) and returns the events the
// insights need, sorted by time.
func Parse(raw []byte) ([]Event, error) {
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, MaxTraceBytes+1)); err != nil {
			return nil, fmt.Errorf("trace: decompressing: %w", err)
		}
	}
	if len(raw) > MaxTraceBytes {
		return nil, fmt.Errorf("trace: larger than %d MiB; open it in the DevTools Performance panel instead", MaxTraceBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := seekEvents(dec); err != nil {
		return nil, err
	}
	var out []Event
	for dec.More() {
		var e Event
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("trace: event %d: %w", len(out), err)
		}
		if kept[e.Name] {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ts < out[j].Ts })
	return out, nil
}

// seekEvents positions dec inside the array of events.
func seekEvents(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if d, ok := tok.(json.Delim); ok && d == '[' {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("trace: not a JSON trace")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		if key == "traceEvents" {
			tok, err := dec.Token()
			if d, ok := tok.(json.Delim); err != nil || !ok || d != '[' {
				return errors.New("trace: traceEvents is not an array")
			}
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
	}
	return errors.New("trace: no traceEvents")
}

// data decodes an event's args.data into v (false when absent or bad).
func (e *Event) data(v any) bool {
	var a struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(e.Args, &a) != nil || len(a.Data) == 0 {
		return false
	}
	return json.Unmarshal(a.Data, v) == nil
}

// frame is an event's args.frame (navigation and paint marks).
func (e *Event) frame() string {
	var a struct {
		Frame string `json:"frame"`
	}
	json.Unmarshal(e.Args, &a)
	return a.Frame
}
