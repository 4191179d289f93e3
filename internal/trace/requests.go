package trace

import "sort"

// request is one network request of the trace, assembled from its
// Resource* events the way the DevTools trace engine does (its
// NetworkRequestsHandler): it starts at its first send (or will-send)
// event and finishes at ResourceFinish's finishTime.
type request struct {
	ID             string
	URL            string
	Type           string
	RenderBlocking string
	Frame          string
	Start          float64 // µs
	Finish         float64 // µs; 0 while unfinished
	FirstByte      float64 // µs, from the response timing; 0 when unknown
	Status         int
	Mime           string
	Bytes          int64 // encoded (transferred)
	Failed         bool
	Protocol       string
}

type sendData struct {
	RequestID      string `json:"requestId"`
	URL            string `json:"url"`
	ResourceType   string `json:"resourceType"`
	RenderBlocking string `json:"renderBlocking"`
	Frame          string `json:"frame"`
}

type timing struct {
	RequestTime        float64  `json:"requestTime"` // seconds
	ReceiveHeadersEnd  float64  `json:"receiveHeadersEnd"`
	ReceiveHeadersStrt *float64 `json:"receiveHeadersStart"`
}

type responseData struct {
	RequestID  string  `json:"requestId"`
	StatusCode int     `json:"statusCode"`
	MimeType   string  `json:"mimeType"`
	Protocol   string  `json:"protocol"`
	Timing     *timing `json:"timing"`
}

type finishData struct {
	RequestID         string  `json:"requestId"`
	FinishTime        float64 `json:"finishTime"` // seconds
	EncodedDataLength int64   `json:"encodedDataLength"`
	DidFail           bool    `json:"didFail"`
}

// requests assembles the trace's requests, in order of start.
func requests(evs []Event) []*request {
	byID := map[string]*request{}
	var order []*request
	get := func(id string) *request {
		r := byID[id]
		if r == nil {
			r = &request{ID: id}
			byID[id] = r
			order = append(order, r)
		}
		return r
	}
	for i := range evs {
		e := &evs[i]
		switch e.Name {
		case "ResourceWillSendRequest", "ResourceSendRequest":
			var d sendData
			if !e.data(&d) || d.RequestID == "" {
				continue
			}
			r := get(d.RequestID)
			if r.Start == 0 || e.Ts < r.Start {
				r.Start = e.Ts
			}
			if d.URL != "" { // the last send (after redirects) is the final URL
				r.URL, r.Type, r.Frame = d.URL, d.ResourceType, d.Frame
				if d.RenderBlocking != "" {
					r.RenderBlocking = d.RenderBlocking
				}
			}
		case "ResourceReceiveResponse":
			var d responseData
			if !e.data(&d) || d.RequestID == "" {
				continue
			}
			r := get(d.RequestID)
			r.Status, r.Mime, r.Protocol = d.StatusCode, d.MimeType, d.Protocol
			if t := d.Timing; t != nil && t.RequestTime > 0 {
				hs := t.ReceiveHeadersEnd
				if t.ReceiveHeadersStrt != nil && *t.ReceiveHeadersStrt > 0 {
					hs = *t.ReceiveHeadersStrt
				}
				r.FirstByte = t.RequestTime*1e6 + hs*1e3
			}
		case "ResourceFinish":
			var d finishData
			if !e.data(&d) || d.RequestID == "" {
				continue
			}
			r := get(d.RequestID)
			r.Finish = e.Ts
			if d.FinishTime > 0 {
				r.Finish = d.FinishTime * 1e6
			}
			r.Bytes, r.Failed = d.EncodedDataLength, d.DidFail
		}
	}
	out := order[:0]
	for _, r := range order {
		if r.URL != "" {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}
