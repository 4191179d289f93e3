package guardcli

import (
	"fmt"
	"io"

	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/state"
)

const redactionUsage = `usage:
  gasoline-host redaction                         show the user patterns and mask selectors
  gasoline-host redaction add REGEX               mask text matching REGEX (RE2) in everything agents see
  gasoline-host redaction remove LABEL|REGEX      stop masking a user pattern`

func redactionMain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	dir, err := state.Dir()
	if err != nil {
		return err
	}
	store := redact.OpenStore(redact.PathIn(dir))
	if len(args) == 0 || args[0] == "show" {
		return showRedaction(store, stdout)
	}
	if len(args) != 2 || (args[0] != "add" && args[0] != "remove") {
		return fmt.Errorf("%s", redactionUsage)
	}
	p, err := store.Policy()
	if err != nil {
		return fmt.Errorf("%v; fix %s by hand", err, store.Path())
	}
	var line string
	switch args[0] {
	case "add":
		line = fmt.Sprintf("adds the pattern %q: text it matches is masked in everything agents see", args[1])
	case "remove":
		u, ok := findPattern(p.UserPatterns, args[1])
		if !ok {
			return fmt.Errorf("no user pattern is %q: `gasoline-host redaction` lists them", args[1])
		}
		line = fmt.Sprintf("removes the pattern %s %q: agents see again what it masked", u.Label, u.Regex)
	}
	if err := confirm(stdin, stderr, "gasoline-host redaction "+args[0], []string{line}); err != nil {
		return err
	}
	_, err = store.Update(func(p *redact.Policy) error {
		if args[0] == "add" {
			p.UserPatterns = append(p.UserPatterns, redact.Pattern{Label: redact.NextLabel(p.UserPatterns), Regex: args[1]})
			return nil
		}
		kept := p.UserPatterns[:0:0]
		for _, u := range p.UserPatterns {
			if u.Label != args[1] && u.Regex != args[1] {
				kept = append(kept, u)
			}
		}
		p.UserPatterns = kept
		return nil
	})
	if err != nil {
		return fmt.Errorf("the redaction policy was not changed: %w", err)
	}
	fmt.Fprintf(stdout, "saved %s; the daemon and the native host use it within a second\n", store.Path())
	return nil
}

func findPattern(ps []redact.Pattern, key string) (redact.Pattern, bool) {
	for _, u := range ps {
		if u.Label == key || u.Regex == key {
			return u, true
		}
	}
	return redact.Pattern{}, false
}

func showRedaction(store *redact.Store, w io.Writer) error {
	p, err := store.Policy()
	if err != nil {
		return fmt.Errorf("%v; fix %s by hand", err, store.Path())
	}
	fmt.Fprintf(w, "%s (policy %s)\n", store.Path(), p.Version)
	if len(p.UserPatterns) == 0 {
		fmt.Fprintln(w, "no user patterns (the built-in classes still apply)")
	}
	for _, u := range p.UserPatterns {
		fmt.Fprintf(w, "  %-10s %s\n", u.Label, u.Regex)
	}
	for _, s := range p.MaskSelectors {
		fmt.Fprintf(w, "  mask %s\n", s)
	}
	return nil
}
