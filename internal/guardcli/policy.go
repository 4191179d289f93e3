package guardcli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gasoline-mcp/gasoline/internal/policy"
)

const policyUsage = `usage:
  gasoline-host policy                                  show the approval rules, numbered
  gasoline-host policy add EFFECT CLASS ACTION ORIGIN   add a rule (effect allow|gate|deny; class read_only|mutating|sensitive|*;
                                                        action tool.mode|tool.*|*; origin scheme://host[:port], *.host, :* or *)
  gasoline-host policy remove N                         remove rule N
  gasoline-host policy reset                            remove every rule (the built-in default: reads run, changes ask)`

func policyMain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	path, err := policy.Path()
	if err != nil {
		return err
	}
	if len(args) == 0 || args[0] == "show" {
		return showPolicy(path, stdout)
	}
	cur, err := policy.Load(path)
	if err != nil && args[0] != "reset" {
		return fmt.Errorf("%v; `gasoline-host policy reset` replaces it with no rules", err)
	}
	next := &policy.Policy{}
	if cur != nil {
		next.Rules = append(next.Rules, cur.Rules...)
		next.Version = cur.Version
	}
	switch {
	case args[0] == "add" && len(args) == 5:
		r := policy.Rule{Effect: policy.Effect(args[1]), Class: args[2], Action: args[3], Origin: args[4]}
		next.Rules = append(next.Rules, r)
		if err := next.Validate(); err != nil {
			return err
		}
	case args[0] == "remove" && len(args) == 2:
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 || n > len(next.Rules) {
			return fmt.Errorf("no rule %q: `gasoline-host policy` lists them, numbered from 1", args[1])
		}
		next.Rules = append(next.Rules[:n-1:n-1], next.Rules[n:]...)
	case args[0] == "reset" && len(args) == 1:
		next.Rules = nil
	default:
		return fmt.Errorf("%s", policyUsage)
	}
	change := policy.Diff(cur, next)
	if change.Empty() {
		fmt.Fprintln(stderr, "nothing changes")
		return nil
	}
	if err := confirm(stdin, stderr, "gasoline-host policy "+args[0], change.Lines()); err != nil {
		return err
	}
	next.Version++
	if err := policy.Save(path, next); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved %s (version %d); the daemon uses it from its next call\n", path, next.Version)
	return nil
}

func showPolicy(path string, w io.Writer) error {
	p, err := policy.Load(path)
	if err != nil {
		return fmt.Errorf("%v; `gasoline-host policy reset` replaces it with no rules", err)
	}
	fmt.Fprintf(w, "%s (version %d)\n", path, p.Version)
	if len(p.Rules) == 0 {
		fmt.Fprintln(w, "no rules: reads run, every change asks you, nothing is refused outright (the built-in default)")
	}
	for i, r := range p.Rules {
		fmt.Fprintf(w, "%3d  %s\n", i+1, r.Words())
	}
	fmt.Fprintln(w, "Among the rules that match a call, deny beats gate beats allow; where none matches, reads run and changes ask.")
	return nil
}
