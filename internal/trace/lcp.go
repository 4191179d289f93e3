package trace

// The page load: its navigation, its marks, and LCP with its phases.

// nav is the main frame's navigation a page-load insight counts from.
type nav struct {
	ts    float64
	id    string // navigationId: also the document request's id
	frame string
	url   string
	pid   int64
}

// navigation is the first main-frame navigation to a document in the
// trace (DevTools' first insight set), or nil.
func navigation(evs []Event) *nav {
	for i := range evs {
		e := &evs[i]
		if e.Name != "navigationStart" {
			continue
		}
		var d struct {
			URL       string `json:"documentLoaderURL"`
			Main      bool   `json:"isLoadingMainFrame"`
			Outermost *bool  `json:"isOutermostMainFrame"`
			ID        string `json:"navigationId"`
		}
		if !e.data(&d) || !d.Main || d.URL == "" || (d.Outermost != nil && !*d.Outermost) {
			continue
		}
		return &nav{ts: e.Ts, id: d.ID, frame: e.frame(), url: d.URL, pid: e.Pid}
	}
	return nil
}

// navData is what the page-load marks carry.
type navData struct {
	NavigationID string `json:"navigationId"`
	Frame        string `json:"frame"`
	Outermost    *bool  `json:"isOutermostMainFrame"`
	Main         *bool  `json:"isMainFrame"`
}

func (d navData) outermost() bool {
	switch {
	case d.Outermost != nil:
		return *d.Outermost
	case d.Main != nil:
		return *d.Main
	}
	return true
}

// marks fills TTFB, FCP, DCL and load.
func (r *Report) marks(evs []Event, n *nav, reqs []*request) {
	if doc := byID(reqs, n.id); doc != nil && doc.FirstByte > 0 {
		r.Metrics.TTFB = r.at(doc.FirstByte)
	}
	for i := range evs {
		e := &evs[i]
		if e.Ts < n.ts {
			continue
		}
		var d navData
		switch e.Name {
		case "firstContentfulPaint":
			if e.data(&d) && d.NavigationID == n.id && r.Metrics.FCP == 0 {
				r.Metrics.FCP = r.at(e.Ts)
			}
		case "MarkDOMContent":
			if e.data(&d) && d.outermost() && (d.Frame == "" || d.Frame == n.frame) && r.Metrics.DCL == 0 {
				r.Metrics.DCL = r.at(e.Ts)
			}
		case "MarkLoad":
			if e.data(&d) && d.outermost() && (d.Frame == "" || d.Frame == n.frame) && r.Metrics.Load == 0 {
				r.Metrics.Load = r.at(e.Ts)
			}
		}
	}
}

func byID(reqs []*request, id string) *request {
	for _, q := range reqs {
		if q.ID == id {
			return q
		}
	}
	return nil
}

type lcpData struct {
	CandidateIndex int    `json:"candidateIndex"`
	NavigationID   string `json:"navigationId"`
	NodeID         int64  `json:"nodeId"`
	NodeName       string `json:"nodeName"`
	Type           string `json:"type"`
	Outermost      *bool  `json:"isOutermostMainFrame"`
	Main           *bool  `json:"isMainFrame"`
}

// lcp finds the navigation's LCP — its candidate with the highest index —
// and splits it into phases as DevTools' LCPBreakdown does: TTFB (to the
// document's first byte), load delay (to the image request's start),
// load time (to its finish) and render delay (to the paint); a text LCP
// has only TTFB and render delay.
func (r *Report) lcp(evs []Event, n *nav, reqs []*request) {
	var best *Event
	var bd lcpData
	for i := range evs {
		e := &evs[i]
		if e.Name != "largestContentfulPaint::Candidate" {
			continue
		}
		var d lcpData
		if !e.data(&d) || d.NavigationID != n.id || !(navData{Outermost: d.Outermost, Main: d.Main}).outermost() {
			continue
		}
		if best == nil || d.CandidateIndex > bd.CandidateIndex {
			best, bd = e, d
		}
	}
	if best == nil {
		r.Notes = append(r.Notes, "Chrome reported no LCP for this load (a page hidden while it loaded reports none)")
		return
	}
	l := &LCP{MS: ms(best.Ts - n.ts), Type: bd.Type, Node: bd.NodeID, NodeName: bd.NodeName}
	r.Metrics.LCP = l.MS
	r.LCP = l
	img := imagePaint(evs, best, bd.NodeID)
	if img != nil {
		var d struct {
			URL string `json:"imageUrl"`
		}
		img.data(&d)
		l.URL = d.URL
	}
	doc := byID(reqs, n.id)
	if doc == nil || doc.FirstByte == 0 {
		r.Notes = append(r.Notes, "the document request is not in the trace: LCP has no phases")
		return
	}
	p := &Phases{TTFB: ms(doc.FirstByte - n.ts)}
	last := doc.FirstByte
	if q := lcpRequest(reqs, l.URL, n.ts, img); q != nil && q.Finish > 0 {
		delay, load := ms(q.Start-doc.FirstByte), ms(q.Finish-q.Start)
		p.LoadDelay, p.LoadTime = &delay, &load
		last = q.Finish
	}
	p.RenderDelay = ms(best.Ts - last)
	l.Phases = p
}

// imagePaint is the LargestImagePaint candidate of the LCP node in the
// LCP's renderer, the one that names the image's URL.
func imagePaint(evs []Event, lcp *Event, node int64) *Event {
	var found *Event
	for i := range evs {
		e := &evs[i]
		if e.Name != "LargestImagePaint::Candidate" || e.Pid != lcp.Pid {
			continue
		}
		var d struct {
			Node int64 `json:"DOMNodeId"`
		}
		if e.data(&d) && d.Node == node {
			found = e
		}
	}
	return found
}

// lcpRequest is the request of the LCP image: the first one to its URL
// that started after the navigation and before the paint.
func lcpRequest(reqs []*request, url string, from float64, paint *Event) *request {
	if url == "" || paint == nil {
		return nil
	}
	for _, q := range reqs {
		if q.Start < from {
			continue
		}
		if q.Start >= paint.Ts {
			break
		}
		if q.URL == url {
			return q
		}
	}
	return nil
}
