package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/actions"
	"github.com/gasoline-mcp/gasoline/internal/approval"
	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// What an approval request binds: the call's class (for a batch, the
// highest of its steps), its steps, and a fingerprint of its arguments
// that the approval is then valid for (approval.Request.Call).

// plan is what the gate knows about a call before asking.
type plan struct {
	class tools.Class
	args  *actions.Args  // an interact call's arguments, decoded once
	steps []actions.Step // a batch's steps; nil otherwise
	call  string         // the arguments' fingerprint
	// pageTarget and pageLines are a page tool call's prompt words
	// (pagetool.go).
	pageTarget string
	pageLines  []string
}

// planOf classifies c and fingerprints its arguments. A batch's class is
// the highest of its steps; a sensitive step (execute_js, upload) is
// refused here, before anything is asked: it needs its own approval, with
// its script or paths shown.
func planOf(c *mcpserver.Call) (plan, *tools.Error) {
	p := plan{class: c.Mode.Class, call: fingerprint(c)}
	if c.Mode.Tool != "interact" {
		return p, nil
	}
	args, err := mcpserver.Decoded[actions.Args](c)
	if err != nil {
		return p, tools.Errorf(tools.CodeInvalidArgument, "arguments of interact %s: %v", c.Mode.Name, err)
	}
	p.args = args
	if c.Mode.Name == "execute_js" && len(args.Script) > approval.MaxDetail {
		return p, tools.Errorf(tools.CodeInvalidArgument, "the script is %d bytes; the user is shown a script whole before it runs, so scripts over %d bytes are refused rather than summarised: send a shorter script (split the work into several calls)",
			len(args.Script), approval.MaxDetail)
	}
	if c.Mode.Name != "batch" {
		return p, nil
	}
	p.class, p.steps = tools.ReadOnly, args.Steps
	for i, st := range args.Steps {
		cl, err := tools.Classify("interact", st.What)
		if err != nil || st.What == "batch" {
			return p, tools.Errorf(tools.CodeInvalidArgument, "step %d: %q is not an interact action mode", i+1, st.What)
		}
		if "interact."+st.What == PageToolMode {
			return p, tools.Errorf(tools.CodeInvalidArgument, "step %d: call_page_tool cannot run inside a batch; call interact call_page_tool on its own (the user then sees the page's tool and its arguments)", i+1)
		}
		if cl == tools.Sensitive {
			return p, tools.Errorf(tools.CodeInvalidArgument, "step %d (%s) is sensitive and cannot run inside a batch; call interact %s on its own (the user then sees its %s and approves it alone)",
				i+1, st.What, st.What, map[string]string{"execute_js": "script", "upload": "files"}[st.What])
		}
		if cl == tools.Mutating {
			p.class = tools.Mutating
		}
	}
	return p, nil
}

// CheckBatch refuses a batch the gate would refuse (the policy may have
// let the call past the gate without asking).
func CheckBatch(c *mcpserver.Call) *tools.Error {
	_, e := planOf(c)
	return e
}

// fingerprint hashes the call's mode and arguments, without the ones that
// only say how to run it (approval_id, timeout_ms, background).
func fingerprint(c *mcpserver.Call) string {
	args := make(map[string]any, len(c.Args))
	for k, v := range c.Args {
		switch k {
		case "approval_id", "timeout_ms", "background":
			continue
		}
		args[k] = v
	}
	raw, _ := json.Marshal(args) // map keys are sorted: one encoding per call
	h := sha256.New()
	h.Write([]byte(c.Mode.Key()))
	h.Write([]byte{0})
	h.Write(raw)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// maxQuoted caps text quoted in a prompt line (the prompt is redacted as a
// whole afterwards).
const maxQuoted = 80

// Phrase says in words what one action does: `type "hello" into textbox
// "Name"`, `click button "Press me"`. desc names the element (from the
// snapshot), or "" when it could not be named; toDesc likewise for drag.
func Phrase(what string, a *actions.Args, desc, toDesc string) string {
	if desc == "" {
		desc = targetText(a.Ref, a.Selector, a.X, a.Y)
	}
	on := ""
	if desc != "" {
		on = " on " + desc
	}
	switch what {
	case "click":
		return strings.TrimSpace("click " + desc)
	case "type":
		return fmt.Sprintf("type %s into %s", quoted(a.Text), desc)
	case "select":
		return fmt.Sprintf("select %s in %s", quoted(fmt.Sprint(a.Value)), desc)
	case "check":
		if a.Checked != nil && !*a.Checked {
			return "uncheck " + desc
		}
		return "check " + desc
	case "key_press":
		return "press " + quoted(a.Keys) + on
	case "drag":
		if toDesc == "" {
			toDesc = targetText(a.ToRef, a.ToSelector, a.ToX, a.ToY)
		}
		return fmt.Sprintf("drag %s onto %s", desc, toDesc)
	case "fill_form":
		return fillPhrase(a)
	case "handle_dialog":
		if a.Accept != nil && *a.Accept {
			if a.PromptText != "" {
				return "accept the dialog, answering " + quoted(a.PromptText)
			}
			return "accept the dialog"
		}
		return "dismiss the dialog"
	case "back":
		return "go back in history"
	case "forward":
		return "go forward in history"
	case "refresh":
		return "reload the page"
	case "execute_js":
		return "run the script below in the page"
	case "upload":
		if len(a.FileContents) > 0 {
			return fmt.Sprintf("upload %s (sent by the agent) into %s", actions.DescribeContents(a.FileContents), desc)
		}
		return fmt.Sprintf("upload %s into %s", strings.Join(a.Files, ", "), desc)
	}
	return strings.TrimSpace(what + on)
}

func fillPhrase(a *actions.Args) string {
	parts := make([]string, 0, len(a.Fields))
	for _, f := range a.Fields {
		parts = append(parts, fmt.Sprintf("%s into %s", quoted(fmt.Sprint(f.Value)), targetText(f.Ref, f.Selector, f.X, f.Y)))
	}
	s := fmt.Sprintf("fill %d fields: %s", len(a.Fields), strings.Join(parts, ", "))
	if a.Submit {
		s += ", then submit the form"
	}
	return s
}

// targetText names a target by what the agent gave: ref, selector or point.
func targetText(ref, selector string, x, y *float64) string {
	switch {
	case ref != "":
		return "element " + ref
	case selector != "":
		return "element " + quoted(selector)
	case x != nil && y != nil:
		return fmt.Sprintf("the point (%g, %g)", *x, *y)
	}
	return ""
}

func quoted(s string) string {
	if len(s) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// scriptWords are execute_js's words: the whole script, shown whole.
func scriptWords(a *actions.Args, label string) Words {
	lines := strings.Count(a.Script, "\n") + 1
	w := Words{Target: Phrase("execute_js", a, "", "") + label, Detail: a.Script,
		DetailLabel: fmt.Sprintf("The whole script (%s, %d characters)", plural(lines, "line", "lines"), len([]rune(a.Script)))}
	if a.Frame != "" {
		w.Notes = append(w.Notes, "It runs in the frame "+quoted(a.Frame)+" of the page.")
	}
	return w
}

// longTexts is the whole of every text a step quotes that its line cut
// (quoted caps at maxQuoted), one per line: "step 2, type: …". "" when no
// text was cut.
func longTexts(steps []actions.Step) string {
	var b strings.Builder
	add := func(i int, what, text string) {
		if len(text) <= maxQuoted {
			return
		}
		if len(steps) > 1 {
			fmt.Fprintf(&b, "step %d, ", i+1)
		}
		fmt.Fprintf(&b, "%s: %s\n", what, text)
	}
	for i, st := range steps {
		a := &st.Args
		add(i, st.What, a.Text)
		add(i, st.What, a.Keys)
		add(i, st.What, a.PromptText)
		if a.Value != nil {
			add(i, st.What, fmt.Sprint(a.Value))
		}
		for _, f := range a.Fields {
			add(i, st.What, fmt.Sprint(f.Value))
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
