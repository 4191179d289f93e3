// Package install writes and removes the native-messaging host manifests
// (and, on Windows, the registry keys naming them) that let Chrome, Chromium,
// Edge and Brave launch gasoline-host for the Gasoline extension.
//
// The manifest document comes from the one template in package manifests;
// where each browser reads it is decided per OS in the paths_*.go files.
package install

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Options say what Install and Uninstall act on.
type Options struct {
	// Browsers names the browsers (Chrome, Chromium, Edge, Brave). Empty
	// means the browsers found on this machine for Install and all four for
	// Uninstall.
	Browsers []string
	// UserDataDir, when set, targets exactly
	// UserDataDir/NativeMessagingHosts/com.gasoline.host.json: the folder
	// Chromium reads for a profile started with --user-data-dir. It needs at
	// most one browser (Chromium by default).
	UserDataDir string
	// System targets the machine-wide locations instead of the user's.
	System bool
	// Path is the host binary the manifest names; empty means the running
	// executable (symlinks resolved).
	Path string
}

// Main runs `gasoline-host install|uninstall [--browser chrome|chromium|edge|brave|all]
// [--user-data-dir DIR] [--system] [--path BIN]`.
func Main(ctx context.Context, uninstall bool, args []string, stdout, stderr io.Writer) error {
	opts, err := parseArgs(uninstall, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if uninstall {
		return Uninstall(opts, stdout)
	}
	return Install(opts, stdout)
}

func parseArgs(uninstall bool, args []string, stderr io.Writer) (Options, error) {
	name := "install"
	if uninstall {
		name = "uninstall"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var browsers string
	var opts Options
	fs.StringVar(&browsers, "browser", "", "chrome, chromium, edge, brave or all, comma-separated (default: install for the browsers found, uninstall for all)")
	fs.StringVar(&opts.UserDataDir, "user-data-dir", "", "only DIR/NativeMessagingHosts/com.gasoline.host.json, for a browser started with --user-data-dir=DIR")
	fs.BoolVar(&opts.System, "system", false, "use the machine-wide locations (needs administrator rights)")
	fs.StringVar(&opts.Path, "path", "", "host binary the manifest names (default: this executable)")
	if err := fs.Parse(args); err != nil {
		return opts, fmt.Errorf("%s: %w", name, err)
	}
	if fs.NArg() > 0 {
		return opts, fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))
	}
	list, err := parseBrowsers(browsers)
	if err != nil {
		return opts, fmt.Errorf("%s: %w", name, err)
	}
	opts.Browsers = list
	return opts, nil
}

// parseBrowsers turns "chrome,edge" or "all" into browser names.
func parseBrowsers(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, b := range strings.Split(s, ",") {
		b = strings.ToLower(strings.TrimSpace(b))
		switch {
		case b == "all":
			out = append(out, Browsers...)
		case isBrowser(b):
			out = append(out, b)
		default:
			return nil, fmt.Errorf("unknown browser %q (want %s or all)", b, strings.Join(Browsers, ", "))
		}
	}
	return dedupe(out), nil
}

// check rejects contradictions and makes UserDataDir absolute.
func (o *Options) check() error {
	if o.UserDataDir != "" {
		if o.System {
			return errors.New("--user-data-dir and --system cannot be combined")
		}
		if len(o.Browsers) > 1 {
			return errors.New("--user-data-dir names one profile: give at most one --browser")
		}
		abs, err := filepath.Abs(o.UserDataDir)
		if err != nil {
			return err
		}
		o.UserDataDir = abs
	}
	return nil
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
