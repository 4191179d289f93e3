package route

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
)

// Header is one response header as the Fetch domain takes it.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Response is what a fulfilling route answers for one request: its
// status, and headers completed with a Content-Type guessed from the body
// when the route gave none, and CORS headers echoing the request's Origin
// when the route gave none (a page's cross-origin fetch would otherwise
// refuse the mocked answer, as it would a real one without them).
func (s Spec) Response(reqHeaders map[string]string) (int, []Header, []byte) {
	status := s.Status
	if status == 0 {
		status = http.StatusOK
	}
	var body []byte
	if s.Body != nil {
		body = []byte(*s.Body)
	}
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, k)
	}
	slices.Sort(names)
	has := map[string]bool{}
	var hs []Header
	for _, k := range names {
		hs = append(hs, Header{Name: k, Value: s.Headers[k]})
		has[strings.ToLower(k)] = true
	}
	if !has["content-type"] && body != nil {
		hs = append(hs, Header{Name: "Content-Type", Value: guessType(body)})
	}
	if origin := headerValue(reqHeaders, "Origin"); origin != "" && !has["access-control-allow-origin"] {
		hs = append(hs, Header{Name: "Access-Control-Allow-Origin", Value: origin}, Header{Name: "Access-Control-Allow-Credentials", Value: "true"})
	}
	return status, hs, body
}

func guessType(body []byte) string {
	if json.Valid(body) && len(strings.TrimSpace(string(body))) > 0 {
		return "application/json"
	}
	return "text/plain; charset=utf-8"
}

func headerValue(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
