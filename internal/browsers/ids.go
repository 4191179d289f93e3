// Package browsers is the daemon's view of the browsers connected to it:
// one extension link per browser profile, told apart by the browser_id the
// extension keeps in the profile, each with a slot that makes its tab ids
// unique across browsers. Calls that name a tab go to the link of the
// browser holding it; calls that name none go to the browser the caller
// chose or, by default, the one the user focused last. A browser that
// stops answering is noticed and does not stall calls to the others.
//
// Tab ids. Chrome's tab ids are unique only within one browser process
// (and two profiles of one process share a counter), so the daemon, its
// capture buffers and its agents use Gasoline tab ids: slot × Span +
// Chrome's id. Chrome's ids are positive 32-bit integers, so the ids of
// two slots never meet. The first browser gets slot 0, whose tab ids are
// Chrome's own. A slot belongs to a browser_id for as long as anything
// (a session's tabs or groups) refers to it, and the table is kept in
// browsers.json, so the same tab has the same id after a daemon restart.
// Translation happens at the link boundary only: every tab_id (and
// tab_ids, replaced_tab_id) the extension sends is made global, and every
// one sent to it is made local again.
package browsers

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// Span separates the tab ids of two slots; it is larger than any Chrome
// tab id (a positive int32).
const Span = 10_000_000_000

// Slot numbers a browser in this state directory.
type Slot int

// TabID is the Gasoline tab id of Chrome tab local in the browser of slot.
func TabID(slot Slot, local int) int { return int(slot)*Span + local }

// Split returns the slot and Chrome's id of a Gasoline tab id.
func Split(tab int) (Slot, int) {
	if tab <= 0 {
		return 0, tab
	}
	return Slot(tab / Span), tab % Span
}

// SlotOf is the slot of a Gasoline tab id.
func SlotOf(tab int) Slot {
	s, _ := Split(tab)
	return s
}

// The fields of link messages that carry tab ids (docs/PROTOCOL.md).
var (
	// inboundFields are translated in events and panel requests.
	inboundFields = []string{"tab_id", "replaced_tab_id", "opener_tab_id"}
	// outboundFields name the tab a request is for.
	outboundFields = []string{"tab_id", "tab_ids"}
)

// tabsIn returns the tab ids named by fields at the top level of raw.
func tabsIn(raw []byte, fields []string) ([]int, error) {
	var out []int
	for _, f := range fields {
		r := gjson.GetBytes(raw, f)
		switch {
		case !r.Exists():
		case r.IsArray():
			for _, x := range r.Array() {
				n, err := intOf(f, x)
				if err != nil {
					return nil, err
				}
				out = append(out, n)
			}
		default:
			n, err := intOf(f, r)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
	}
	return out, nil
}

func intOf(field string, r gjson.Result) (int, error) {
	if r.Type != gjson.Number {
		return 0, fmt.Errorf("browsers: %s is not a number", field)
	}
	n, err := strconv.ParseInt(r.Raw, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("browsers: %s is not an integer", field)
	}
	return int(n), nil
}

// rewrite returns raw with every tab id in fields (a number, or an array of
// numbers, at the top level) replaced by f(id).
func rewrite(raw []byte, fields []string, f func(int) int) ([]byte, error) {
	for _, field := range fields {
		r := gjson.GetBytes(raw, field)
		if !r.Exists() {
			continue
		}
		if r.Index <= 0 {
			return nil, fmt.Errorf("browsers: cannot locate %s in the message", field)
		}
		var repl []byte
		if r.IsArray() {
			ids, err := tabsIn([]byte(`{"x":`+r.Raw+`}`), []string{"x"})
			if err != nil {
				return nil, fmt.Errorf("browsers: %s: %w", field, err)
			}
			for i := range ids {
				ids[i] = f(ids[i])
			}
			repl, _ = json.Marshal(ids)
		} else {
			n, err := intOf(field, r)
			if err != nil {
				return nil, err
			}
			repl = strconv.AppendInt(nil, int64(f(n)), 10)
		}
		out := make([]byte, 0, len(raw)+len(repl))
		out = append(out, raw[:r.Index]...)
		out = append(out, repl...)
		raw = append(out, raw[r.Index+len(r.Raw):]...)
	}
	return raw, nil
}

// Globalize makes the tab ids of a message from the browser of slot (an
// event's or a panel request's params) Gasoline tab ids. Messages that name
// no tab come back as they are.
func Globalize(slot Slot, params json.RawMessage) (json.RawMessage, error) {
	if len(params) == 0 {
		return params, nil
	}
	return rewrite(params, inboundFields, func(local int) int {
		if local <= 0 {
			return local
		}
		return TabID(slot, local)
	})
}
