package bridge

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/extid"
)

// endpointRequest builds a request for an endpoint pattern ("POST
// /approvals/{id}/approve") on the daemon, with the credential of role.
func endpointRequest(t *testing.T, s *Server, e Endpoint, role creds.Role) *http.Request {
	t.Helper()
	method, path, ok := strings.Cut(e.Pattern, " ")
	if !ok {
		method, path = "POST", e.Pattern // a method-less pattern: /mcp
	}
	path = strings.ReplaceAll(path, "{id}", "req_x")
	req, err := http.NewRequest(method, "http://127.0.0.1:"+strconv.Itoa(s.Port())+path, strings.NewReader("{}"))
	require.NoError(t, err)
	if role != creds.None {
		req.Header.Set("Authorization", "Bearer "+s.Credential(role))
	}
	return req
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestEveryEndpointTakesOnlyItsCredential walks every endpoint the daemon
// serves × every credential (and none): only the endpoint's own role gets
// past the guard; another role's credential is a 403 that names the
// credential the endpoint takes; none is a 401. With its own credential,
// a non-loopback Host and a foreign Origin are refused too, and a loopback
// page's or the extension's Origin is accepted.
func TestEveryEndpointTakesOnlyItsCredential(t *testing.T) {
	s := daemon(t)
	var shutdown Endpoint
	for _, e := range s.Endpoints() {
		if e.Pattern == "POST /shutdown" {
			shutdown = e // its own credential stops the daemon: last
		}
		for _, role := range append([]creds.Role{creds.None}, creds.Roles...) {
			if e.Pattern == shutdown.Pattern && role == e.Role {
				continue
			}
			t.Run(e.Pattern+"/"+role.String(), func(t *testing.T) {
				code, body := do(t, endpointRequest(t, s, e, role))
				switch {
				case e.Role == creds.None:
					require.Equal(t, http.StatusOK, code, body)
				case role == e.Role:
					require.NotContains(t, []int{401, 403}, code, "its own credential is refused: %s", body)
				case role == creds.None:
					require.Equal(t, http.StatusUnauthorized, code, body)
					require.Contains(t, body, "the "+e.Role.String()+" credential")
				default:
					require.Equal(t, http.StatusForbidden, code, body)
					require.Contains(t, body, "the "+e.Role.String()+" credential")
					require.Contains(t, body, "the "+role.String()+" credential is not valid here")
				}
				for _, r := range creds.Roles {
					require.NotContains(t, body, s.Credential(r), "an answer carries a credential")
				}
			})
		}
		role := e.Role
		if role == creds.None {
			role = creds.Agent // /health: a credential changes nothing
		}
		for _, tc := range []struct {
			name, host, origin string
			refused            bool
		}{
			{"rebinding Host", "evil.example:80", "", true},
			{"LAN Host", "192.168.1.20", "", true},
			{"foreign Origin", "", "https://evil.example", true},
			{"null Origin", "", "null", true},
			{"another extension", "", "chrome-extension://abcdefghijklmnopabcdefghijklmnop", true},
			{"loopback page Origin", "", "http://localhost:3000", false},
			{"extension Origin", "", extid.Origin, false},
		} {
			if e.Pattern == shutdown.Pattern && !tc.refused {
				continue
			}
			t.Run(e.Pattern+"/"+tc.name, func(t *testing.T) {
				if e.Role == creds.None && tc.origin != "" {
					t.Skip("/health checks Host only")
				}
				req := endpointRequest(t, s, e, role)
				if tc.host != "" {
					req.Host = tc.host
				}
				if tc.origin != "" {
					req.Header.Set("Origin", tc.origin)
				}
				code, body := do(t, req)
				if tc.refused {
					require.Equal(t, http.StatusForbidden, code, body)
				} else {
					require.NotContains(t, []int{401, 403}, code, body)
				}
			})
		}
	}
	require.NotEmpty(t, shutdown.Pattern)
	code, body := do(t, endpointRequest(t, s, shutdown, creds.Approver))
	require.Equal(t, http.StatusAccepted, code, body)
}
