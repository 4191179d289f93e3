// Package doctor is `gasoline-host doctor`: one command that checks every
// part of an installation — daemon, both MCP transports, native-host
// manifests, the extension — and names the command that fixes each
// failure. It reports; it never starts anything.
package doctor

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/install"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

// FailedError reports that one or more checks failed (exit status 1).
type FailedError struct{ Failed int }

func (e *FailedError) Error() string {
	return fmt.Sprintf("doctor: %d check(s) failed; run the fix under each", e.Failed)
}

// Status of one check.
type Status string

const (
	OK   Status = "ok"
	Fail Status = "FAIL"
	Skip Status = "skip"
)

// Result is one check's outcome.
type Result struct {
	Name   string
	Status Status
	Detail string
	Fix    string // a command or step that repairs a failure
}

// Options selects what to check.
type Options struct {
	Dir         string   // state directory
	Port        int      // daemon port
	Browsers    []string // browsers whose manifests to check; default: found ones
	UserDataDir string   // check this profile's manifest instead of the user-level one
	Self        string   // this binary (for the stdio check and fix commands)
	Timeout     time.Duration
}

// Main runs `gasoline-host doctor [--browser B] [--user-data-dir DIR]`.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	browser := fs.String("browser", "", "check this browser's manifest (chrome, chromium, edge, brave)")
	udd := fs.String("user-data-dir", "", "check the manifest in this browser profile directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var opts Options
	var err error
	if opts.Dir, err = state.Dir(); err != nil {
		return err
	}
	if opts.Port, err = state.Port(); err != nil {
		return err
	}
	if opts.Self, err = os.Executable(); err != nil {
		return err
	}
	if *browser != "" {
		opts.Browsers = []string{*browser}
	}
	opts.UserDataDir = *udd
	results := Run(ctx, opts)
	return Report(stdout, results)
}

// Report prints results, one line each with the fix under a failure, and
// returns *FailedError when any failed.
func Report(w io.Writer, results []Result) error {
	failed := 0
	for _, r := range results {
		fmt.Fprintf(w, "%-4s  %-22s %s\n", r.Status, r.Name, r.Detail)
		if r.Status == Fail {
			failed++
			if r.Fix != "" {
				fmt.Fprintf(w, "      fix: %s\n", r.Fix)
			}
		}
	}
	if failed > 0 {
		return &FailedError{Failed: failed}
	}
	fmt.Fprintln(w, "all checks passed")
	return nil
}

// Run performs every check in order; later checks that need the daemon are
// skipped (not failed twice) when it is down.
func Run(ctx context.Context, opts Options) []Result {
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	var out []Result
	d, daemonRes := checkDaemon(ctx, opts)
	out = append(out, daemonRes...)
	up := d != nil
	out = append(out,
		checkSlim(ctx, opts),
		checkStdio(ctx, opts, up),
		checkHTTP(ctx, opts, d),
		checkRedaction(opts),
	)
	out = append(out, checkManifests(opts)...)
	out = append(out, checkExtension(d))
	return out
}

func checkManifests(opts Options) []Result {
	browsers := opts.Browsers
	if len(browsers) == 0 && opts.UserDataDir != "" {
		browsers = []string{install.Chromium}
	}
	if len(browsers) == 0 {
		browsers = installedBrowsers()
	}
	var out []Result
	for _, b := range browsers {
		name := "manifest (" + b + ")"
		path, err := install.Check(b, opts.UserDataDir)
		if err != nil {
			r := Result{Name: name, Status: Fail, Detail: err.Error()}
			var ce *install.CheckError
			if asCheckError(err, &ce) {
				r.Detail, r.Fix = ce.Manifest+": "+ce.Err.Error(), ce.Fix
			}
			out = append(out, r)
			continue
		}
		out = append(out, Result{Name: name, Status: OK, Detail: path})
	}
	return out
}

// checkRedaction loads the redaction policy the daemon and the native
// host use (redaction.json, or the built-in default when there is none)
// and runs the gateway's self-test: planted secrets must come out masked.
func checkRedaction(opts Options) Result {
	r := Result{Name: "redaction policy"}
	path := redact.PathIn(opts.Dir)
	e, err := redact.OpenStore(path).Engine()
	if err != nil {
		r.Status, r.Detail = Fail, err.Error()
		r.Fix = "fix or remove " + path + " (every output is blocked until it loads; docs/REDACTION.md describes the file)"
		return r
	}
	where := path
	if _, statErr := os.Stat(path); statErr != nil {
		where = "built-in default; no " + path
	}
	if err := redact.SelfTest(func(s string) (string, error) { out, _, err := e.Text(s); return out, err }); err != nil {
		r.Status, r.Detail = Fail, fmt.Sprintf("policy %s (%s): %v", e.PolicyVersion(), where, err)
		r.Fix = "remove the \"disable\" entries of " + path + " that switch off built-in classes, or delete the file to use the default"
		return r
	}
	r.Status, r.Detail = OK, fmt.Sprintf("policy %s (%s); self-test: planted secrets come out masked", e.PolicyVersion(), where)
	return r
}
