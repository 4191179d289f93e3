package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gasoline-mcp/gasoline/internal/creds"
	"github.com/gasoline-mcp/gasoline/internal/install"
	"github.com/gasoline-mcp/gasoline/internal/launcher"
	"github.com/gasoline-mcp/gasoline/internal/mcpconfig"
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// daemonInfo is what later checks need from a running daemon.
type daemonInfo struct {
	port      int
	token     string
	extension string
}

func checkDaemon(ctx context.Context, opts Options) (*daemonInfo, []Result) {
	start := opts.Self + " daemon   (or: " + opts.Self + " service start)"
	h, err := launcher.Probe(ctx, opts.Port)
	if err != nil {
		fix := start
		detail := fmt.Sprintf("nothing answers on 127.0.0.1:%d (%v)", opts.Port, err)
		if errors.Is(err, launcher.ErrForeignPort) {
			fix = "stop the program on port " + strconv.Itoa(opts.Port) + ", or set GASOLINE_PORT to a free port"
		} else if stop, stopped := state.Stopped(opts.Dir); stopped {
			detail = "Gasoline was " + stop.Describe() + "; nothing starts it again on its own"
			fix = opts.Self + " service start   (or the Start button in the Gasoline panel)"
		}
		return nil, []Result{{Name: "daemon", Status: Fail, Detail: detail, Fix: fix}}
	}
	res := []Result{{Name: "daemon", Status: OK, Detail: fmt.Sprintf("version %s, pid %d, port %d", h.Version, h.PID, opts.Port)}}
	if h.Version != version.Version {
		res = append(res, Result{Name: "daemon version", Status: Fail,
			Detail: fmt.Sprintf("daemon runs %s, this binary is %s", h.Version, version.Version),
			Fix:    "restart the daemon with this binary: " + opts.Self + " service stop; " + start})
	}
	st, err := state.Read(opts.Dir)
	if err != nil || st.PID != h.PID {
		detail := "state.json does not name the running daemon"
		if err != nil {
			detail = err.Error()
		}
		return nil, append(res, Result{Name: "state file", Status: Fail, Detail: detail + " (" + state.Path(opts.Dir) + ")",
			Fix: "check GASOLINE_HOME matches the daemon's, or restart it: " + start})
	}
	var full struct {
		TransportStatus struct {
			Extension string `json:"extension"`
		} `json:"transport_status"`
	}
	if err := getJSON(ctx, opts.Port, &full); err != nil {
		return nil, append(res, Result{Name: "health", Status: Fail, Detail: err.Error(), Fix: start})
	}
	tok, err := creds.Load(opts.Dir, creds.Agent)
	if err != nil {
		return nil, append(res, Result{Name: "agent credential", Status: Fail, Detail: err.Error(),
			Fix: opts.Self + " token rotate   (then update HTTP clients: " + opts.Self + " mcp-config)"})
	}
	return &daemonInfo{port: opts.Port, token: tok, extension: full.TransportStatus.Extension}, res
}

func getJSON(ctx context.Context, port int, v any) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

var impl = &mcp.Implementation{Name: "gasoline-doctor", Version: version.Version}

// checkSlim checks that gasoline-mcp, what agents' configs run, is
// beside this gasoline-host and of its version.
func checkSlim(ctx context.Context, opts Options) Result {
	p := mcpconfig.SlimPath(opts.Self)
	r := Result{Name: "gasoline-mcp", Fix: "put gasoline-mcp beside " + opts.Self + ": make build (both land in bin/), or run the installer again"}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		r.Status, r.Detail = Fail, p+" is missing: agents' configs fall back to "+opts.Self+" --mcp, which starts slower, "+
			"and a config that names gasoline-mcp cannot start"
		return r
	}
	out, err := exec.CommandContext(ctx, p, "version").Output()
	switch v := strings.TrimSpace(string(out)); {
	case err != nil:
		r.Status, r.Detail = Fail, p+" does not run: "+err.Error()
	case v != version.Version:
		r.Status, r.Detail = Fail, p+" is version "+v+", gasoline-host "+version.Version+": agents would run a relay of another release"
	default:
		r.Status, r.Detail, r.Fix = OK, p, ""
	}
	return r
}

// checkStdio runs what agents' configs run (gasoline-mcp beside this
// gasoline-host, else gasoline-host --mcp) as an agent would: initialize
// and tools/list.
func checkStdio(ctx context.Context, opts Options, daemonUp bool) Result {
	r := Result{Name: "MCP stdio"}
	if !daemonUp {
		r.Status, r.Detail = Skip, "daemon not running (gasoline-mcp would start one; doctor does not)"
		return r
	}
	cmd := exec.CommandContext(ctx, opts.Self, "--mcp")
	if fi, err := os.Stat(mcpconfig.SlimPath(opts.Self)); err == nil && fi.Mode().IsRegular() {
		cmd = exec.CommandContext(ctx, mcpconfig.SlimPath(opts.Self))
	}
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4096}
	cs, err := mcp.NewClient(impl, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		r.Status, r.Detail, r.Fix = Fail, "initialize: "+err.Error(), strings.Join(cmd.Args, " ")+"   (run it by hand to see its error on stderr)"
		if last := lastLine(stderr.String()); last != "" {
			r.Detail += "; it said: " + last
		}
		return r
	}
	defer cs.Close()
	return listTools(ctx, cs, r)
}

// checkHTTP initializes over streamable HTTP at /mcp with the token.
func checkHTTP(ctx context.Context, opts Options, d *daemonInfo) Result {
	r := Result{Name: "MCP HTTP"}
	if d == nil {
		r.Status, r.Detail = Skip, "daemon not running"
		return r
	}
	t := &mcp.StreamableClientTransport{
		Endpoint:             "http://127.0.0.1:" + strconv.Itoa(d.port) + "/mcp",
		HTTPClient:           &http.Client{Transport: bearer{d.token}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	cs, err := mcp.NewClient(impl, nil).Connect(ctx, t, nil)
	if err != nil {
		r.Status, r.Detail, r.Fix = Fail, "initialize: "+err.Error(), "see "+state.LogDir(opts.Dir)+"/daemon.log"
		return r
	}
	defer cs.Close()
	return listTools(ctx, cs, r)
}

func listTools(ctx context.Context, cs *mcp.ClientSession, r Result) Result {
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		r.Status, r.Detail = Fail, "tools/list: "+err.Error()
		return r
	}
	r.Status, r.Detail = OK, fmt.Sprintf("initialize + tools/list: %d tools (server %s)", len(tl.Tools), cs.InitializeResult().ServerInfo.Version)
	return r
}

func checkExtension(d *daemonInfo) Result {
	r := Result{Name: "extension"}
	switch {
	case d == nil:
		r.Status, r.Detail = Skip, "daemon not running"
	case d.extension == "connected":
		r.Status, r.Detail = OK, "connected"
	default:
		r.Status, r.Detail = Fail, "no browser extension is connected to the daemon"
		r.Fix = "open Chrome with the Gasoline extension (chrome://extensions → Developer mode → Load unpacked → the extension/ folder); if it is loaded, its native host is not registered: gasoline-host install"
	}
	return r
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

type bearer struct{ token string }

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}

func asCheckError(err error, ce **install.CheckError) bool { return errors.As(err, ce) }

// installedBrowsers lists the browsers worth checking: those this user
// has, else Chromium (whose missing manifest is then reported).
func installedBrowsers() []string {
	if found := install.Found(); len(found) > 0 {
		return found
	}
	return []string{install.Chromium}
}
