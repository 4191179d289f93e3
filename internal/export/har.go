package export

import (
	"net/url"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// HAR is a HAR 1.2 document (the fields Gasoline fills).
type HAR struct {
	Log HARLog `json:"log"`
}

// HARLog is HAR's log object.
type HARLog struct {
	Version string     `json:"version"`
	Creator HARCreator `json:"creator"`
	Pages   []HARPage  `json:"pages"`
	Entries []HAREntry `json:"entries"`
	Comment string     `json:"comment,omitempty"`
}

// HARCreator names the tool.
type HARCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// HARPage is one page.
type HARPage struct {
	StartedDateTime time.Time      `json:"startedDateTime"`
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	PageTimings     map[string]int `json:"pageTimings"`
}

// HAREntry is one request.
type HAREntry struct {
	Pageref         string      `json:"pageref,omitempty"`
	StartedDateTime time.Time   `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         HARRequest  `json:"request"`
	Response        HARResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         HARTimings  `json:"timings"`
	Comment         string      `json:"comment,omitempty"`
}

// HARNV is a name/value pair.
type HARNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HARRequest is an entry's request.
type HARRequest struct {
	Method      string  `json:"method"`
	URL         string  `json:"url"`
	HTTPVersion string  `json:"httpVersion"`
	Cookies     []HARNV `json:"cookies"`
	Headers     []HARNV `json:"headers"`
	QueryString []HARNV `json:"queryString"`
	HeadersSize int     `json:"headersSize"`
	BodySize    int     `json:"bodySize"`
}

// HARResponse is an entry's response.
type HARResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []HARNV    `json:"cookies"`
	Headers     []HARNV    `json:"headers"`
	Content     HARContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int64      `json:"bodySize"`
	Error       string     `json:"_error,omitempty"`
}

// HARContent is a response's content (no body: bodies are read on demand
// with observe network_bodies).
type HARContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
}

// HARTimings splits an entry's time; unknown phases are -1.
type HARTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// BuildHAR makes a HAR of captured requests (filtered by urlContains when
// set). Headers and bodies are not captured, so those arrays are empty;
// the comment says so.
func BuildHAR(reqs []capture.Request, pageURL, title, version, urlContains string) HAR {
	h := HAR{Log: HARLog{Version: "1.2", Creator: HARCreator{Name: "Gasoline", Version: version},
		Pages: []HARPage{}, Entries: []HAREntry{},
		Comment: "captured by Gasoline; headers and bodies are not included, values are redacted"}}
	if len(reqs) > 0 {
		h.Log.Pages = append(h.Log.Pages, HARPage{StartedDateTime: reqs[0].Start.UTC(), ID: "page_1", Title: firstNonEmpty(title, pageURL),
			PageTimings: map[string]int{"onContentLoad": -1, "onLoad": -1}})
	}
	for _, r := range reqs {
		if urlContains != "" && !strings.Contains(strings.ToLower(r.URL), strings.ToLower(urlContains)) {
			continue
		}
		e := HAREntry{Pageref: "page_1", StartedDateTime: r.Start.UTC(), Time: max(r.DurationMs, 0)}
		e.Request = HARRequest{Method: r.Method, URL: r.URL, HTTPVersion: "HTTP/1.1", Cookies: []HARNV{}, Headers: []HARNV{},
			QueryString: queryOf(r.URL), HeadersSize: -1, BodySize: -1}
		e.Response = HARResponse{Status: r.Status, StatusText: r.StatusText, HTTPVersion: "HTTP/1.1", Cookies: []HARNV{}, Headers: []HARNV{},
			Content: HARContent{Size: max(r.EncodedDataLength, 0), MimeType: firstNonEmpty(r.MimeType, "x-unknown")}, HeadersSize: -1,
			BodySize: -1, Error: r.ErrorText}
		// send, wait and receive must not be negative (HAR 1.2).
		wait := max(r.TTFBMs, 0)
		recv := max(r.DurationMs-wait, 0)
		e.Timings = HARTimings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: wait, Receive: recv, SSL: -1}
		if r.Failed {
			e.Comment = "failed: " + r.ErrorText
		}
		h.Log.Entries = append(h.Log.Entries, e)
	}
	return h
}

func queryOf(raw string) []HARNV {
	out := []HARNV{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			out = append(out, HARNV{Name: k, Value: v})
		}
	}
	return out
}

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}
