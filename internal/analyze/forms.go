package analyze

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

//go:embed forms.js
var formsJS string

var formsFn = script(formsJS)

// FormsReport is analyze forms' answer.
type FormsReport struct {
	TabID         int            `json:"tab_id"`
	URL           string         `json:"url"`
	Forms         []Form         `json:"forms"`
	HiddenDropped int            `json:"hidden_dropped,omitempty"`
	HiddenReasons map[string]int `json:"hidden_reasons,omitempty"` // HiddenDropped by reason (internal/visible)
}

// Form is one form, or the controls outside any form (ID, Action and
// Selector empty).
type Form struct {
	ID         string   `json:"id,omitempty"`
	Name       string   `json:"name,omitempty"`
	Label      string   `json:"label,omitempty"`
	Action     string   `json:"action,omitempty"`
	Method     string   `json:"method,omitempty"`
	NoValidate bool     `json:"novalidate,omitempty"`
	Ref        refNum   `json:"ref,omitempty"`
	Selector   string   `json:"selector,omitempty"`
	Fields     []Field  `json:"fields"`
	Buttons    []Button `json:"buttons"`
	Issues     []string `json:"issues,omitempty"`
}

// Field is one form control.
type Field struct {
	Tag          string            `json:"tag"`
	Type         string            `json:"type"`
	Name         string            `json:"name,omitempty"`
	ID           string            `json:"id,omitempty"`
	Label        string            `json:"label"`
	LabelFrom    string            `json:"label_from"` // aria-labelledby, aria-label, label, title, placeholder, or "" (none)
	Required     bool              `json:"required"`
	Disabled     bool              `json:"disabled,omitempty"`
	ReadOnly     bool              `json:"readonly,omitempty"`
	Visible      bool              `json:"visible"`
	Autocomplete string            `json:"autocomplete,omitempty"`
	Checked      *bool             `json:"checked,omitempty"`
	Selected     []string          `json:"selected,omitempty"`
	Filled       *bool             `json:"filled,omitempty"` // has a value (never shown)
	Constraints  map[string]string `json:"constraints,omitempty"`
	Valid        *bool             `json:"valid,omitempty"`
	Errors       []string          `json:"errors,omitempty"` // ValidityState flags: valueMissing, typeMismatch, …
	Message      string            `json:"message,omitempty"`
	AriaInvalid  bool              `json:"aria_invalid,omitempty"`
	Ref          refNum            `json:"ref,omitempty"`
	Selector     string            `json:"selector"`
}

// Button is a form's button.
type Button struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Disabled bool   `json:"disabled,omitempty"`
	Visible  bool   `json:"visible"`
	Ref      refNum `json:"ref,omitempty"`
	Selector string `json:"selector"`
}

func (a *Analyzer) forms(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.release()
	var r FormsReport
	if err := p.call(ctx, formsFn(), map[string]string{"selector": c.Args.Selector}, &r); err != nil {
		return nil, err
	}
	r.TabID = p.tab
	for i := range r.Forms {
		f := &r.Forms[i]
		f.Ref = a.ref(p.tab, f.Ref)
		for j := range f.Fields {
			fd := &f.Fields[j]
			fd.Ref = a.ref(p.tab, fd.Ref)
			f.Issues = append(f.Issues, fieldIssues(fd)...)
		}
		for j := range f.Buttons {
			f.Buttons[j].Ref = a.ref(p.tab, f.Buttons[j].Ref)
		}
	}
	return pageResult(formsText(&r), r, r.page())
}

// fieldIssues are a field's problems a person filling the form meets.
func fieldIssues(f *Field) []string {
	var out []string
	name := fieldName(f)
	switch f.LabelFrom {
	case "":
		out = append(out, name+" has no label")
	case "placeholder":
		out = append(out, name+" is labelled only by its placeholder (it disappears when typing)")
	}
	if f.Valid != nil && !*f.Valid && f.Visible && !f.Disabled {
		out = append(out, fmt.Sprintf("%s is invalid (%s)", name, strings.Join(f.Errors, ", ")))
	}
	return out
}

func fieldName(f *Field) string {
	switch {
	case f.Label != "":
		return fmt.Sprintf("%s %q", f.Type, f.Label)
	case f.Name != "":
		return fmt.Sprintf("%s name=%q", f.Type, f.Name)
	}
	return fmt.Sprintf("%s %s", f.Type, f.Selector)
}

func formsText(r *FormsReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d form(s)", r.TabID, len(r.Forms))
	for _, f := range r.Forms {
		head := "controls outside any form"
		if f.Selector != "" {
			head = fmt.Sprintf("form %s %s %s", f.Selector, strings.ToUpper(f.Method), f.Action)
			if f.Label != "" {
				head += fmt.Sprintf(" %q", f.Label)
			}
		}
		fmt.Fprintf(&b, "\n%s%s", head, refSuffix(f.Ref))
		for _, fd := range f.Fields {
			fmt.Fprintf(&b, "\n- %s%s", fieldName(&fd), refSuffix(fd.Ref))
			var st []string
			if fd.Required {
				st = append(st, "required")
			}
			if fd.Disabled {
				st = append(st, "disabled")
			}
			if !fd.Visible {
				st = append(st, "hidden")
			}
			if fd.Checked != nil {
				st = append(st, map[bool]string{true: "checked", false: "unchecked"}[*fd.Checked])
			}
			if fd.Filled != nil {
				st = append(st, map[bool]string{true: "filled", false: "empty"}[*fd.Filled])
			}
			if len(fd.Selected) > 0 {
				st = append(st, "selected: "+strings.Join(fd.Selected, ", "))
			}
			if fd.Valid != nil && !*fd.Valid {
				st = append(st, "invalid: "+strings.Join(fd.Errors, ", "))
			}
			if len(st) > 0 {
				b.WriteString(" [" + strings.Join(st, "; ") + "]")
			}
		}
		for _, bt := range f.Buttons {
			fmt.Fprintf(&b, "\n- %s button %q%s", bt.Type, bt.Text, refSuffix(bt.Ref))
		}
		for _, is := range f.Issues {
			fmt.Fprintf(&b, "\n  issue: %s", is)
		}
	}
	return b.String()
}
