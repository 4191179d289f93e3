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
// JSON): the same words as the panel.
type request struct {
	RequestID   string   `json:"request_id"`
	Action      string   `json:"action"`
	Class       string   `json:"class"`
	Describe    string   `json:"describe"`
	Target      string   `json:"target"`
	Reason      string   `json:"reason"`
	Steps       []string `json:"steps"`
	Notes       []string `json:"notes"`
	Detail      string   `json:"detail"`
	DetailLabel string   `json:"detail_label"`
	PageWarning string   `json:"page_warning"`
	Page        *struct {
		Title string `json:"title"`
		URL   string `json:"url"`
	} `json:"page"`
	Scope struct {
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

// describe writes the request as a person reads it: the same words as
// the panel — what kind of call, what it acts on, every step, every note,
// the whole script or address (never cut), the tab as the browser names
// it, the page warning. Everything quotes the agent or the page, so every
// control character (a terminal escape, a bidi override) outside a
// script's line breaks and tabs is shown as �.
func describe(w io.Writer, r request) {
	fmt.Fprintf(w, "%s (%s) on tab %d", printable(r.Action), printable(r.Class), r.Scope.TabID)
	if r.Scope.Origin != "" {
		fmt.Fprintf(w, " at %s", printable(r.Scope.Origin))
	}
	fmt.Fprintln(w)
	line := func(label, s string) {
		if s != "" {
			fmt.Fprintf(w, "  %s: %s\n", label, printable(s))
		}
	}
	line("asks to", r.Describe)
	line("target", r.Target)
	for i, s := range r.Steps {
		line(fmt.Sprintf("step %d", i+1), s)
	}
	for _, s := range r.Notes {
		line("note", s)
	}
	if r.Page != nil {
		line("tab shows", fmt.Sprintf("%q %s (as the browser reports it)", r.Page.Title, r.Page.URL))
	}
	line("the agent says", r.Reason)
	line("WARNING", r.PageWarning)
	if r.Detail != "" {
		label := r.DetailLabel
		if label == "" {
			label = "In full"
		}
		fmt.Fprintf(w, "  %s:\n", printable(label))
		for _, l := range strings.Split(r.Detail, "\n") {
			fmt.Fprintf(w, "    | %s\n", printableKeepTabs(l))
		}
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

// printableKeepTabs is printable for a line of a script: its tabs stay.
func printableKeepTabs(s string) string {
	parts := strings.Split(s, "\t")
	for i := range parts {
		parts[i] = printable(parts[i])
	}
	return strings.Join(parts, "\t")
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
