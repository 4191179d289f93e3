package actions

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/gasoline-mcp/gasoline/internal/redact"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
)

// ReadArgs are get_text's, get_value's and get_attribute's arguments.
type ReadArgs struct {
	Target
	Name string // get_attribute: the attribute
}

const readJS = `function (what, name, max, mask) { return globalThis.__gasolineActions.read(this, what, name, max, mask) }`

// GetText reads the text a person sees in an element (laid out like
// innerText, without text no person sees: Result.HiddenDropped counts it),
// capped at Config.MaxResult.
func (e *Engine) GetText(ctx context.Context, tab int, args ReadArgs) (*Result, error) {
	return e.read(ctx, tab, "get_text", "text", args)
}

// GetValue reads a form control's value (a select's selected values; a
// checkbox's value when checked, else ""). Password values are masked.
func (e *Engine) GetValue(ctx context.Context, tab int, args ReadArgs) (*Result, error) {
	return e.read(ctx, tab, "get_value", "value", args)
}

// GetAttribute reads one attribute (null when absent).
func (e *Engine) GetAttribute(ctx context.Context, tab int, args ReadArgs) (*Result, error) {
	if args.Name == "" {
		return nil, invalid("get_attribute needs name, the attribute to read")
	}
	return e.read(ctx, tab, "get_attribute", "attribute", args)
}

func (e *Engine) read(ctx context.Context, tab int, action, what string, args ReadArgs) (*Result, error) {
	return e.run(ctx, tab, action, runOpts{}, func(ctx context.Context, a *act) error {
		el, err := a.resolve(ctx, args.Target, false)
		if err != nil {
			return err
		}
		var r struct {
			Value     *string `json:"value"`
			Truncated bool    `json:"truncated"`
			Desc      string  `json:"desc"`
			Type      string  `json:"type"`
			Dropped   int     `json:"dropped"`
			Secret    bool    `json:"secret"`
		}
		if err := a.callEl(ctx, el, readJS, &r, what, args.Name, a.e.cfg.MaxResult, a.mask); err != nil {
			return err
		}
		if r.Desc != "" {
			el.desc = r.Desc
		}
		// A sensitive element's value and text, and its value attribute,
		// read •••• (internal/sensitive).
		if r.Secret && r.Value != nil && *r.Value != "" && (what != "attribute" || strings.EqualFold(args.Name, "value")) {
			masked := sensitive.Mask
			r.Value, r.Truncated = &masked, false
		}
		a.res.Target, a.res.Truncated = el.desc, r.Truncated
		if what == "text" {
			a.res.HiddenDropped = &r.Dropped
		}
		of := what + " of " + el.desc
		if what == "attribute" {
			of = fmt.Sprintf("attribute %s of %s", args.Name, el.desc)
		}
		if r.Value == nil {
			a.res.Message = of + " is absent"
			return nil
		}
		if r.Truncated {
			*r.Value = redact.TrimCut(*r.Value) // the page's cut may have split a secret
		}
		a.res.Value = *r.Value
		a.res.Message = of + ": " + strconv.Quote(clip(*r.Value, 200))
		return nil
	})
}

// QueryArgs are query's arguments.
type QueryArgs struct {
	Selector string
	Frame    string
	Limit    int // default 20, at most 1000
}

// QueryItem is one element query found.
type QueryItem struct {
	Desc    string `json:"desc"`
	Visible bool   `json:"visible"`
}

const queryJS = `function (q, limit) { return globalThis.__gasolineActions.query(q, limit) }`

// Query counts the elements a selector matches and lists them (visible
// ones first) with their descriptions.
func (e *Engine) Query(ctx context.Context, tab int, args QueryArgs) (*Result, error) {
	return e.run(ctx, tab, "query", runOpts{}, func(ctx context.Context, a *act) error {
		sel, err := ParseSelector(args.Selector)
		if err != nil {
			return errorf(CodeInvalidTarget, "selector %q: %v", args.Selector, err)
		}
		limit := args.Limit
		if limit <= 0 {
			limit = 20
		}
		limit = min(limit, 1000)
		sid, fid := "", cdproto.FrameID("")
		if args.Frame != "" {
			if sid, fid, err = a.frameOf(ctx, args.Frame); err != nil {
				return err
			}
		}
		ec, _, err := a.world(ctx, sid, fid)
		if err != nil {
			return err
		}
		var r struct {
			Count int         `json:"count"`
			Items []QueryItem `json:"items"`
		}
		c := jsCall{fn: queryJS, context: ec, args: []any{query{Selector: sel, Text: args.Selector}, limit}}
		if err := callValue(ctx, a.e.session(a.tab, sid), c, &r); err != nil {
			return err
		}
		a.res.Value = r
		a.res.Matches = r.Count
		var b strings.Builder
		fmt.Fprintf(&b, "%d element(s) match %s", r.Count, args.Selector)
		for i, it := range r.Items {
			sep := ", "
			if i == 0 {
				sep = ": "
			}
			b.WriteString(sep + it.Desc)
			if !it.Visible {
				b.WriteString(" (hidden)")
			}
		}
		if r.Count > len(r.Items) {
			fmt.Fprintf(&b, ", … (%d more)", r.Count-len(r.Items))
		}
		a.res.Message = b.String()
		a.res.Matches = 0 // the count is in the message and Value
		return nil
	})
}
