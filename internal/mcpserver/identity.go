package mcpserver

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/gasoline-mcp/gasoline/internal/httpguard"
)

// HTTP sessions belong to their credential. The guard in front of /mcp
// names the credential's identity (httpguard.IdentityFrom); the go-sdk's
// own session-hijacking check does the rest: it records TokenInfo.UserID
// when a session is made and refuses (403, "session user mismatch") any
// later request for that Mcp-Session-Id whose TokenInfo names someone
// else. So a remote agent cannot use a local client's session id, nor
// the reverse, nor a revoked remote's session with another credential.

// extraRemote is the TokenInfo.Extra key of a remote agent's name.
const extraRemote = "gasoline_remote"

// withTokenInfo puts the guard's identity where the SDK looks for it. A
// request that did not pass the guard (no identity) is refused: /mcp is
// always mounted behind it.
func withTokenInfo(h http.Handler) http.Handler {
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		id, ok := httpguard.IdentityFrom(ctx)
		if !ok || id.Principal == "" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: id.Principal, Expiration: id.Expires, Extra: map[string]any{extraRemote: id.Name}}, nil
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}
