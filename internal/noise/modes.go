package noise

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// ListResult is configure noise_rule's answer.
type ListResult struct {
	Op    string `json:"op"`
	Rules []Rule `json:"rules"`
	// Changed is the rule added or removed.
	Changed string `json:"changed,omitempty"`
	// FileError says why noise.json could not be read (no rule applies).
	FileError string `json:"file_error,omitempty"`
}

// Register serves configure noise_rule on m.
func (r *Rules) Register(m *mcpserver.Server) {
	m.Handle("configure", "noise_rule", r.mode)
}

func (r *Rules) mode(ctx context.Context, c *mcpserver.Call) (any, error) {
	op, pattern := c.Args.Op, c.Args.Pattern
	res := ListResult{Op: op}
	var err error
	switch op {
	case "list":
	case "add", "remove":
		if pattern == "" {
			return nil, &tools.Error{Code: tools.CodeInvalidArgument, Message: "noise_rule " + op + " needs pattern (a regular expression matched against console messages, error messages and their source URLs)",
				NextAction: tools.Describe("configure", "noise_rule")}
		}
		if op == "add" {
			_, err = r.Add(pattern, time.Now())
		} else {
			err = r.Remove(pattern)
		}
		res.Changed = pattern
	default:
		return nil, tools.Errorf(tools.CodeInvalidArgument, "op must be list, add or remove")
	}
	if err != nil {
		return nil, toolError(op, err)
	}
	res.Rules = r.List()
	if e := r.Err(); e != nil {
		res.FileError = e.Error()
	}
	return mcpserver.Result(text(res), res)
}

func toolError(op string, err error) error {
	list := &tools.Next{Tool: "configure", Arguments: map[string]any{"what": "noise_rule", "op": "list"}}
	switch {
	case errors.Is(err, ErrInvalid):
		return &tools.Error{Code: tools.CodeInvalidArgument, Message: err.Error() + "; give an RE2 regular expression, e.g. \"ResizeObserver loop\" or \"(?i)third-party\\\\.example\""}
	case errors.Is(err, ErrFull):
		return &tools.Error{Code: "too_many_rules", Message: err.Error() + "; remove one first", NextAction: list}
	case errors.Is(err, ErrNotFound):
		return &tools.Error{Code: "rule_not_found", Message: err.Error() + "; remove takes a rule's exact pattern, as noise_rule list shows it", NextAction: list}
	case errors.Is(err, ErrExists):
		return &tools.Error{Code: "rule_exists", Message: err.Error() + "; nothing changed", NextAction: list}
	}
	return fmt.Errorf("noise_rule %s: %w", op, err)
}

func text(res ListResult) string {
	var b strings.Builder
	switch res.Op {
	case "add":
		fmt.Fprintf(&b, "added noise rule %q; ", res.Changed)
	case "remove":
		fmt.Fprintf(&b, "removed noise rule %q; ", res.Changed)
	}
	fmt.Fprintf(&b, "%d noise rules (hide matching console messages and errors from observe errors, logs, error_bundles, timeline and pr_summary)", len(res.Rules))
	for _, ru := range res.Rules {
		fmt.Fprintf(&b, "\n- %q hid %d", ru.Pattern, ru.Hidden)
	}
	if res.FileError != "" {
		fmt.Fprintf(&b, "\nnoise.json could not be read, so no rule applies until the next add or remove rewrites it: %s", res.FileError)
	}
	return b.String()
}
