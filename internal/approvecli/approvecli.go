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
	"bufio"
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
	"unicode"

	"golang.org/x/term"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// Main runs approve (deny=false) or deny with args:
//
//	approve <request_id> [--site MINUTES]
//	deny <request_id> [--reason TEXT]
//
// It first shows the request as the panel does (action, target, every
// step, the page warning) on stderr; an approval then asks "Approve? [y/N]"
// on the terminal, so the person sees what they decide. On approve it
// prints the minted approval_id on one line of stdout.
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
	req, err := pending(ctx, id)
	if err != nil {
		return err
	}
	describe(stderr, req)
	if !deny && !confirm(stdin, stderr) {
		return fmt.Errorf("not approved (nothing was decided; the request stays pending until it expires)")
	}
	body := map[string]any{"kind": "once"}
	if *site > 0 {
		body = map[string]any{"kind": "site", "minutes": *site}
	}
	if deny {
		body = map[string]any{"reason": *reason}
	}
	res, err := call(ctx, "POST", "/approvals/"+id+"/"+verb, body)
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

// request is what the CLI shows of a pending request (approval.Request's
// JSON).
type request struct {
	RequestID   string   `json:"request_id"`
	Action      string   `json:"action"`
	Class       string   `json:"class"`
	Target      string   `json:"target"`
	Reason      string   `json:"reason"`
	Steps       []string `json:"steps"`
	PageWarning string   `json:"page_warning"`
	Scope       struct {
		TabID  int    `json:"tab_id"`
		Origin string `json:"origin"`
	} `json:"scope"`
}

// pending finds request id among the daemon's pending requests.
func pending(ctx context.Context, id string) (request, error) {
	res, err := call(ctx, "GET", "/approvals", nil)
	if err != nil {
		return request{}, err
	}
	raw, _ := json.Marshal(res["pending"])
	var all []request
	if err := json.Unmarshal(raw, &all); err != nil {
		return request{}, fmt.Errorf("reading the pending requests: %w", err)
	}
	for _, r := range all {
		if r.RequestID == id {
			return r, nil
		}
	}
	return request{}, fmt.Errorf("no pending request %s (decided, expired, or mistyped); list pending requests with observe {what:\"approvals\"} or in the Gasoline panel", id)
}

// describe writes the request as a person reads it. Targets, steps and
// the warning quote the page, so every control character (a terminal
// escape sequence, a bidi override) is shown as �.
func describe(w io.Writer, r request) {
	r.Action, r.Class, r.Scope.Origin, r.Target, r.Reason, r.PageWarning =
		printable(r.Action), printable(r.Class), printable(r.Scope.Origin), printable(r.Target), printable(r.Reason), printable(r.PageWarning)
	for i := range r.Steps {
		r.Steps[i] = printable(r.Steps[i])
	}
	fmt.Fprintf(w, "%s (%s) on tab %d", r.Action, r.Class, r.Scope.TabID)
	if r.Scope.Origin != "" {
		fmt.Fprintf(w, " at %s", r.Scope.Origin)
	}
	fmt.Fprintln(w)
	if r.Target != "" {
		fmt.Fprintf(w, "  target: %s\n", r.Target)
	}
	for i, s := range r.Steps {
		fmt.Fprintf(w, "  step %d: %s\n", i+1, s)
	}
	if r.Reason != "" {
		fmt.Fprintf(w, "  the agent says: %s\n", r.Reason)
	}
	if r.PageWarning != "" {
		fmt.Fprintf(w, "  WARNING: %s\n", r.PageWarning)
	}
}

func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// confirm asks on the terminal; only y or yes approves.
func confirm(stdin io.Reader, w io.Writer) bool {
	fmt.Fprint(w, "Approve? [y/N] ")
	line, _ := bufio.NewReader(stdin).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

func call(ctx context.Context, method, path string, body any) (map[string]any, error) {
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
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = strings.NewReader(string(raw))
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:"+strconv.Itoa(st.Port)+path, rd)
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
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
