package trace

import (
	"math"
	"sort"
)

// Layout shifts: the worst session window (CLS), the elements that moved
// and what made them move, as DevTools' CLSCulprits has it.

type shiftData struct {
	Score     float64 `json:"weighted_score_delta"`
	Input     bool    `json:"had_recent_input"`
	MainFrame *bool   `json:"is_main_frame"`
	Impacted  []struct {
		Node int64     `json:"node_id"`
		Name string    `json:"debug_name"`
		Old  []float64 `json:"old_rect"`
		New  []float64 `json:"new_rect"`
	} `json:"impacted_nodes"`
}

type shift struct {
	ev *Event
	d  shiftData
}

// Session windows end after a second without a shift or five seconds in
// all (web.dev/cls).
const (
	windowGap = 1e6
	windowMax = 5e6
	// fontWindow: a font that finished loading this long before a frame
	// may have caused that frame's shifts.
	fontWindow = 500e3
)

func (r *Report) cls(evs []Event, main thread, reqs []*request) {
	var shifts []shift
	for i := range evs {
		e := &evs[i]
		if e.Name != "LayoutShift" || e.Ts < r.navTs || (main.pid != 0 && e.Pid != main.pid) {
			continue
		}
		var d shiftData
		if !e.data(&d) || d.Input || (d.MainFrame != nil && !*d.MainFrame) || d.Score <= 0 {
			continue
		}
		shifts = append(shifts, shift{e, d})
	}
	if len(shifts) == 0 {
		return
	}
	best, bestScore := windows(shifts)
	w := shifts[best[0]:best[1]]
	c := &CLS{Score: math.Round(bestScore*1e4) / 1e4, Shifts: len(w), StartMS: r.at(w[0].ev.Ts)}
	c.Shifted = shiftedNodes(w)
	c.Culprits = culprits(evs, w, reqs)
	r.CLS = c
}

// windows returns the bounds [i, j) of the worst session window and its
// score.
func windows(shifts []shift) ([2]int, float64) {
	var best [2]int
	bestScore, start, score := -1.0, 0, 0.0
	for i, s := range shifts {
		if i > start && (s.ev.Ts-shifts[i-1].ev.Ts > windowGap || s.ev.Ts-shifts[start].ev.Ts > windowMax) {
			start, score = i, 0
		}
		score += s.d.Score
		if score > bestScore {
			best, bestScore = [2]int{start, i + 1}, score
		}
	}
	return best, bestScore
}

// shiftedNodes are the elements that moved most in the window.
func shiftedNodes(w []shift) []Shifted {
	moved := map[int64]*Shifted{}
	for _, s := range w {
		for _, n := range s.d.Impacted {
			if len(n.Old) < 4 || len(n.New) < 4 {
				continue
			}
			d := math.Max(math.Abs(n.New[0]-n.Old[0]), math.Abs(n.New[1]-n.Old[1]))
			if m := moved[n.Node]; m == nil || d > m.Distance {
				moved[n.Node] = &Shifted{Node: n.Node, NodeName: n.Name, Distance: d}
			}
		}
	}
	out := make([]Shifted, 0, len(moved))
	for _, m := range moved {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Distance != out[j].Distance {
			return out[i].Distance > out[j].Distance
		}
		return out[i].Node < out[j].Node
	})
	return out[:min(len(out), 5)]
}

// culprits finds, for each shift, the frame (PrePaint) it happened in,
// then an image painted in that frame that Chrome had laid out without a
// size (LayoutImageUnsized), and fonts that finished loading just before.
func culprits(evs []Event, w []shift, reqs []*request) []Culprit {
	unsized := map[int64]bool{}
	var prePaints, paintImages []*Event
	for i := range evs {
		e := &evs[i]
		switch e.Name {
		case "LayoutImageUnsized":
			var d struct {
				Node int64 `json:"nodeId"`
			}
			if e.data(&d) {
				unsized[d.Node] = true
			}
		case "PrePaint":
			prePaints = append(prePaints, e)
		case "PaintImage":
			paintImages = append(paintImages, e)
		}
	}
	var out []Culprit
	seen := map[string]bool{}
	add := func(c Culprit) {
		k := c.Kind + "\x00" + c.URL
		if !seen[k] && len(out) < 5 {
			seen[k] = true
			out = append(out, c)
		}
	}
	for _, s := range w {
		pp := lastBefore(prePaints, s.ev.Ts, s.ev.Pid)
		if pp == nil {
			continue
		}
		if img := firstAfter(paintImages, pp.Ts, s.ev.Pid); img != nil {
			var d struct {
				Node int64  `json:"nodeId"`
				Name string `json:"nodeName"`
				URL  string `json:"url"`
			}
			if img.data(&d) && unsized[d.Node] {
				add(Culprit{Kind: "unsized_image", URL: d.URL, Node: d.Node, NodeName: d.Name})
			}
		}
		for _, q := range reqs {
			if q.Type == "Font" && q.Finish > 0 && q.Finish <= pp.Ts && pp.Ts-q.Finish <= fontWindow {
				add(Culprit{Kind: "web_font", URL: q.URL})
			}
		}
	}
	return out
}

// lastBefore is the latest event of pid at or before ts.
func lastBefore(evs []*Event, ts float64, pid int64) *Event {
	var found *Event
	for _, e := range evs {
		if e.Ts > ts {
			break
		}
		if e.Pid == pid {
			found = e
		}
	}
	return found
}

// firstAfter is the first event of pid after ts.
func firstAfter(evs []*Event, ts float64, pid int64) *Event {
	for _, e := range evs {
		if e.Ts > ts && e.Pid == pid {
			return e
		}
	}
	return nil
}
