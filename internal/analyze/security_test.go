package analyze

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gasoline-mcp/gasoline/internal/capture"
)

func keys(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Severity+" "+f.Key)
	}
	return out
}

// The main document's headers: what is missing is a finding; a page whose
// response capture did not see says to reload, and claims nothing else.
func TestAuditHeaders(t *testing.T) {
	a := &Analyzer{}
	doc := func(h map[string]string) []capture.Request {
		return []capture.Request{{ID: "L", LoaderID: "L", ResourceType: "Document", Status: 200, Headers: h}}
	}
	for _, tc := range []struct {
		name  string
		https bool
		reqs  []capture.Request
		meta  []string
		want  []string
	}{
		{"not captured", false, nil, nil, []string{"low "}},
		{"all set", true, doc(map[string]string{"content-security-policy": "default-src 'self'; frame-ancestors 'none'",
			"strict-transport-security": "max-age=63072000", "x-content-type-options": "nosniff"}), nil, []string{}},
		{"nothing on https", true, doc(nil), nil, []string{"medium content-security-policy", "medium strict-transport-security",
			"low x-content-type-options", "medium x-frame-options"}},
		{"report-only, meta frame options", false, doc(map[string]string{"content-security-policy-report-only": "default-src 'self'",
			"x-frame-options": "SAMEORIGIN", "x-content-type-options": "NoSniff"}), nil, []string{"low content-security-policy"}},
		{"CSP in a meta tag", false, doc(map[string]string{"x-frame-options": "DENY", "x-content-type-options": "nosniff"}),
			[]string{"default-src 'self'"}, []string{}},
		{"a redirect hop is not the document", false, []capture.Request{{ID: "L", LoaderID: "L", ResourceType: "Document", Status: 302}}, nil, []string{"low "}},
	} {
		r := &SecurityReport{HTTPS: tc.https}
		a.auditHeaders(r, tc.meta, tc.reqs)
		assert.Equal(t, tc.want, keys(r.Findings), tc.name)
		assert.Equal(t, tc.reqs != nil && tc.reqs[0].Status == 200, r.HeadersSeen, tc.name)
	}
}
