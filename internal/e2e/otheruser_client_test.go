package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientReport is what the client run as another user found.
type clientReport struct {
	ReadErr  string `json:"read_err"`
	Tools    int    `json:"tools"`
	Health   string `json:"health"`
	ClientUI int    `json:"uid"`
}

// asClient is the test binary's client mode (TestMain runs it when
// GASOLINE_E2E_AS_CLIENT is set): try to read the credential file, then
// connect with the URL and credential mcp-config printed, list the tools
// and call configure health; print what happened as JSON.
func asClient() int {
	var r clientReport
	r.ClientUI = os.Getuid()
	if _, err := os.ReadFile(os.Getenv("GASOLINE_E2E_CRED_FILE")); err != nil {
		r.ReadErr = err.Error()
		if errors.Is(err, fs.ErrPermission) {
			r.ReadErr = "permission denied"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: os.Getenv("GASOLINE_E2E_URL"),
		HTTPClient: &http.Client{Transport: bearer{os.Getenv("GASOLINE_E2E_TOKEN")}}, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "other-user", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		defer cs.Close()
		if lt, err := cs.ListTools(ctx, nil); err == nil {
			r.Tools = len(lt.Tools)
		}
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "configure", Arguments: map[string]any{"what": "health"}}); err == nil && !res.IsError {
			r.Health = "ok"
		}
	} else {
		r.Health = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}
