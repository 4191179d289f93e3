package remote

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/mcpconfig"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

const usage = "usage: gasoline-host remote add NAME [--tools observe,interact] [--origins https://app.example,http://localhost:*] [--ttl 24h] [--client claude|codex|gemini|cursor|json] [--ssh HOST] [--remote-port N]\n" +
	"       gasoline-host remote list\n" +
	"       gasoline-host remote revoke NAME"

// Main runs `gasoline-host remote add|list|revoke`. add needs a person at
// a terminal, as approve does: a new credential widens what may reach the
// browser, and an agent's shell tool has no terminal.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	dir, err := state.Dir()
	if err != nil {
		return err
	}
	switch args[0] {
	case "add":
		if !isTerminal(stdin) {
			return errors.New("remote add must be run by a person at a terminal (stdin is not a terminal): it mints a credential that reaches your browser")
		}
		return addCLI(dir, args[1:], stdout, stderr)
	case "list":
		return list(dir, stdout)
	case "revoke":
		if len(args) != 2 {
			return errors.New(usage)
		}
		return revokeCLI(ctx, dir, args[1], stdout)
	}
	return fmt.Errorf("remote: unknown command %q\n%s", args[0], usage)
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// AddOptions are `remote add`'s choices.
type AddOptions struct {
	Name       string
	Tools      []string
	Origins    []string
	TTL        time.Duration
	Client     string
	SSHHost    string
	LocalPort  int // the daemon's port on this machine
	RemotePort int // the port the agent uses on the remote machine
}

func addCLI(dir string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("remote add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	toolsFlag := fs.String("tools", strings.Join(DefaultTools, ","), "tools (observe) or modes (interact.click) it may use, comma-separated")
	origins := fs.String("origins", "", "sites it may work on, comma-separated: https://app.example, http://localhost:*, https://*.example.com, or * for any (required)")
	ttl := fs.Duration("ttl", DefaultTTL, "how long the credential works (at most 720h)")
	client := fs.String("client", "claude", "the MCP client on the remote machine: "+strings.Join(mcpconfig.RemoteClients, ", "))
	ssh := fs.String("ssh", "", "the SSH host of the remote machine (default: NAME)")
	rport := fs.Int("remote-port", 0, "the port the agent connects to on the remote machine (default: the daemon's port)")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New(usage)
	}
	name := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	port, err := state.Port()
	if err != nil {
		return err
	}
	o := AddOptions{Name: name, Tools: strings.Split(*toolsFlag, ","), Origins: strings.Split(*origins, ","), TTL: *ttl,
		Client: *client, SSHHost: *ssh, LocalPort: port, RemotePort: *rport}
	tok, a, err := Add(dir, o, time.Now())
	if err != nil {
		return err
	}
	return PrintSetup(stdout, o, a, tok)
}

// Add checks o, mints the agent's credential, stores its hash and returns
// the credential (shown once) with the stored agent.
func Add(dir string, o AddOptions, now time.Time) (string, Agent, error) {
	if err := validName(o.Name); err != nil {
		return "", Agent{}, err
	}
	tl, err := ParseTools(o.Tools)
	if err != nil {
		return "", Agent{}, err
	}
	ps, err := ParseOrigins(o.Origins)
	if err != nil {
		return "", Agent{}, err
	}
	if o.TTL <= 0 || o.TTL > MaxTTL {
		return "", Agent{}, fmt.Errorf("--ttl %s: between 1m and %s", o.TTL, MaxTTL)
	}
	if _, err := mcpconfig.RemoteSnippet(o.Client, mcpconfig.Target{}); err != nil {
		return "", Agent{}, fmt.Errorf("--client: %w", err)
	}
	if err := creds.Secure(dir, nil); err != nil {
		return "", Agent{}, err
	}
	tok, sum := newToken()
	a := Agent{Name: o.Name, ID: newID(), TokenSHA256: sum, Tools: tl, Created: now.UTC(), Expires: now.Add(o.TTL).UTC()}
	for _, p := range ps {
		a.Origins = append(a.Origins, p.String())
	}
	if err := add(dir, a); err != nil {
		return "", Agent{}, err
	}
	return tok, a, nil
}

// PrintSetup tells the user, step by step, how to connect the remote
// agent: the SSH forward, its MCP config, and how to check it.
func PrintSetup(w io.Writer, o AddOptions, a Agent, tok string) error {
	if o.RemotePort == 0 {
		o.RemotePort = o.LocalPort
	}
	if o.SSHHost == "" {
		o.SSHHost = o.Name
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", o.RemotePort)
	snippet, err := mcpconfig.RemoteSnippet(o.Client, mcpconfig.Target{URL: url, Token: tok})
	if err != nil {
		return err
	}
	fwd := fmt.Sprintf("127.0.0.1:%d:127.0.0.1:%d", o.RemotePort, o.LocalPort)
	fmt.Fprintf(w, "Remote agent %q added: MCP only; tools %s; sites %s; expires %s (in %s).\n",
		a.Name, strings.Join(a.Tools, ", "), strings.Join(a.Origins, ", "), a.Expires.Local().Format("2006-01-02 15:04 MST"), a.Expires.Sub(a.Created).Round(time.Minute))
	fmt.Fprintf(w, "Its credential is shown once, below; Gasoline keeps only its hash. Revoke it any time: gasoline-host remote revoke %s (or in the Gasoline panel).\n\n", a.Name)
	fmt.Fprintf(w, "1. On this machine (where Chrome runs), forward %s's loopback port %d to Gasoline, and keep it running:\n", o.SSHHost, o.RemotePort)
	fmt.Fprintf(w, "     ssh -N -o ExitOnForwardFailure=yes -R %s %s\n", fwd, o.SSHHost)
	fmt.Fprintf(w, "   (or in ~/.ssh/config, under Host %s: RemoteForward %s 127.0.0.1:%d)\n\n", o.SSHHost, strings.TrimSuffix(fwd, fmt.Sprintf(":127.0.0.1:%d", o.LocalPort)), o.LocalPort)
	fmt.Fprintf(w, "2. On %s, configure the agent:\n", o.SSHHost)
	for line := range strings.Lines(snippet) {
		fmt.Fprint(w, "     "+line)
	}
	fmt.Fprintf(w, "\n3. Check it from %s:\n", o.SSHHost)
	fmt.Fprintf(w, "     curl -s http://127.0.0.1:%d/health          # the forward works: {\"service-name\":\"gasoline\",…}\n", o.RemotePort)
	fmt.Fprintf(w, "     %s\n", checkHint(o.Client))
	fmt.Fprintf(w, "   Every change it asks for waits for your approval here, in the Gasoline panel, as %q.\n", a.Name)
	return nil
}

func checkHint(client string) string {
	switch client {
	case "claude":
		return "claude mcp list                                # gasoline: … ✔ Connected"
	case "gemini":
		return "gemini mcp list                                # ✓ gasoline: … - Connected"
	case "codex":
		return "codex mcp list                                 # gasoline … enabled"
	}
	return "your client's server list shows gasoline connected, with 5 tools"
}

func list(dir string, w io.Writer) error {
	agents, err := Load(dir)
	if err != nil {
		return err
	}
	if len(agents) == 0 {
		fmt.Fprintln(w, "No remote agents. Add one: gasoline-host remote add NAME --origins https://app.example")
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTOOLS\tSITES\tEXPIRES")
	for _, a := range agents {
		exp := a.Expires.Local().Format("2006-01-02 15:04")
		if !a.Live(now) {
			exp += " (expired)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Name, strings.Join(a.Tools, ","), strings.Join(a.Origins, ","), exp)
	}
	return tw.Flush()
}

// revokeCLI asks a running daemon to revoke (it ends the agent's sessions
// at once); with none running, it removes the agent from the store.
func revokeCLI(ctx context.Context, dir, name string, w io.Writer) error {
	if err := validName(name); err != nil {
		return err
	}
	done, err := revokeInDaemon(ctx, dir, name)
	if err != nil {
		return err
	}
	if !done {
		if _, err := revoke(dir, name); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "Remote agent %q revoked: its credential no longer works", name)
	if done {
		fmt.Fprint(w, " and its sessions have ended")
	}
	fmt.Fprintln(w, ".")
	return nil
}

// revokeInDaemon posts the revocation to the running daemon (approver
// credential). done is false when no daemon answers.
func revokeInDaemon(ctx context.Context, dir, name string) (done bool, err error) {
	st, err := state.Read(dir)
	if err != nil {
		return false, nil
	}
	tok, err := creds.Load(dir, creds.Approver)
	if err != nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:"+strconv.Itoa(st.Port)+"/remotes/"+name+"/revoke", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, nil // no daemon there
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusNoContent:
		return true, nil
	case http.StatusNotFound:
		return false, fmt.Errorf("%w: %q (gasoline-host remote list shows them)", ErrUnknown, name)
	}
	var body struct {
		Error string `json:"error"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 4096)).Decode(&body)
	return false, fmt.Errorf("remote revoke: the daemon answered %s: %s", resp.Status, body.Error)
}
