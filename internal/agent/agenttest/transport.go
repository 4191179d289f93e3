package agenttest

import (
	"bytes"
	"io"
	"net/http"
)

// Canned is an http.RoundTripper that answers every request with Status
// and Body (fuzzing the adapters' decoding of untrusted provider bytes).
type Canned struct {
	Status int
	Body   []byte
}

// RoundTrip answers with the canned response.
func (c Canned) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: c.Status, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(c.Body)), Request: r}, nil
}
