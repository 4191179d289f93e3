// Package approvecli is `gasoline-host approve|deny <request_id>`: a user
// at a terminal decides a pending approval (the same engine as the panel).
//
// It sends the approver credential, which no agent is handed (an agent's
// MCP credential is refused by /approvals), and it insists on a terminal:
// an agent's shell tool runs commands without one. Both are walls against
// what the agent holds, not against every program of the same user, which
// can read the credential files; docs/SECURITY.md says so.
package approvecli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Main runs approve (deny=false) or deny with args:
//
//	approve <request_id> [--site MINUTES]
//	deny <request_id> [--reason TEXT]
//
// On approve it prints the minted approval_id on one line of stdout.
func Main(ctx context.Context, deny bool, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	verb := "approve"
	if deny {
		verb = "deny"
	}
	fs := flag.NewFlagSet(verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	site := fs.Int("site", 0, "approve for this site (origin and action class) for this many minutes")
	reason := fs.String("reason", "", "why (deny)")
	id, rest := splitID(args)
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if id == "" {
		return fmt.Errorf("usage: gasoline-host %s <request_id>; list pending requests with observe {what:\"approvals\"} or in the Gasoline panel", verb)
	}
	if !isTerminal(stdin) {
		return fmt.Errorf("%s must be run by a person at a terminal (stdin is not a terminal); approve in the Gasoline panel instead", verb)
	}
	body := map[string]any{"kind": "once"}
	if *site > 0 {
		body = map[string]any{"kind": "site", "minutes": *site}
	}
	if deny {
		body = map[string]any{"reason": *reason}
	}
	res, err := post(ctx, "/approvals/"+id+"/"+verb, body)
	if err != nil {
		return err
	}
	if !deny {
		fmt.Fprintln(stdout, res["approval_id"])
	}
	return nil
}

// splitID takes the request id from args, wherever it stands among flags.
func splitID(args []string) (string, []string) {
	var rest []string
	id := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			if !strings.Contains(a, "=") && i+1 < len(args) {
				rest = append(rest, args[i+1])
				i++
			}
			continue
		}
		if id == "" {
			id = a
		}
	}
	return id, rest
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func post(ctx context.Context, path string, body any) (map[string]any, error) {
	dir, err := state.Dir()
	if err != nil {
		return nil, err
	}
	st, err := state.Read(dir)
	if err != nil {
		return nil, fmt.Errorf("no running daemon (%v); start it with gasoline-host daemon", err)
	}
	tok, err := creds.Load(dir, creds.Approver)
	if err != nil {
		return nil, fmt.Errorf("the daemon's approver credential: %w", err)
	}
	raw, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:"+strconv.Itoa(st.Port)+path, strings.NewReader(string(raw)))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reaching the daemon: %w", err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out)
	if resp.StatusCode >= 300 {
		msg, _ := out["error"].(string)
		if msg == "" {
			msg = resp.Status
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return out, nil
}
