package actions

import (
	"context"
	"errors"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/scheme"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// frameJS finds an iframe of the main frame by selector, name, id or URL.
const frameJS = `function (spec) { return globalThis.__gasolineActions.frame(spec) }`

// frameOf resolves a frame spec (a ref or selector of an iframe, its name,
// id or URL substring) to the session and frame id of its document: the
// child session of an out-of-process frame, else the frame in the
// session that holds the iframe.
func (a *act) frameOf(ctx context.Context, spec string) (string, cdproto.FrameID, error) {
	sid, fid, err := a.frameOfSpec(ctx, spec)
	if err != nil {
		return "", "", err
	}
	return sid, fid, a.frameAllowed(ctx, spec, sid, fid)
}

// frameAllowed refuses a frame whose document is off-limits to agents
// (internal/scheme): a data: frame, an extension's page, a browser error
// page. An http(s) frame, about:blank, about:srcdoc and a blob: of a web
// origin may be driven.
func (a *act) frameAllowed(ctx context.Context, spec, sid string, fid cdproto.FrameID) error {
	tree, err := cdproto.Call(ctx, a.e.session(a.tab, sid), page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return fmt.Errorf("reading frame %s: %w", spec, err)
	}
	f := findFrame(tree.FrameTree, fid)
	if f == nil {
		return errorf(CodeFrame, "frame %s is not loaded (no document); take a new snapshot", spec)
	}
	if err := scheme.Page(f.URL); err != nil {
		var r *scheme.Refusal
		errors.As(err, &r)
		return &tools.Error{Code: scheme.Code, Message: fmt.Sprintf("frame %s shows %s, which is off-limits to agents (an agent may act only in %s frames, about:srcdoc and blob: pages of a web origin); nothing was done", spec, r.Kind, scheme.Allowed)}
	}
	return nil
}

// findFrame finds frame id in a frame tree; "" is the tree's root.
func findFrame(t *page.FrameTree, id cdproto.FrameID) *cdproto.Frame {
	if t == nil || t.Frame == nil {
		return nil
	}
	if id == "" || t.Frame.ID == id {
		return t.Frame
	}
	for _, c := range t.ChildFrames {
		if f := findFrame(c, id); f != nil {
			return f
		}
	}
	return nil
}

func (a *act) frameOfSpec(ctx context.Context, spec string) (string, cdproto.FrameID, error) {
	if isFrameID(spec) { // a CDP frame id (observe page lists them)
		if sid, ok := a.e.child(a.tab, cdproto.FrameID(spec)); ok {
			return sid, "", nil
		}
		return "", cdproto.FrameID(spec), nil
	}
	var owner *elem
	var err error
	if isRef(spec) {
		owner, err = a.resolveRef(ctx, spec)
	} else {
		var ec runtime.ExecutionContextID
		var frame cdproto.FrameID
		if ec, frame, err = a.world(ctx, "", ""); err == nil {
			var o *runtime.RemoteObject
			if o, err = call(ctx, a.s, jsCall{fn: frameJS, context: ec, args: []any{spec}}, asHandle); err == nil {
				owner = &elem{s: a.s, frame: frame, ec: ec, obj: o.ObjectID}
			}
		}
	}
	if err != nil {
		return "", "", err
	}
	d, err := cdproto.Call(ctx, owner.s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: owner.obj})
	if err != nil {
		return "", "", fmt.Errorf("describing frame %s: %w", spec, err)
	}
	if d.Node == nil || d.Node.FrameID == "" {
		return "", "", errorf(CodeFrame, "frame %s is not an iframe, or its document is not loaded yet", spec)
	}
	if sid, ok := a.e.child(a.tab, d.Node.FrameID); ok {
		return sid, "", nil
	}
	return owner.sid, d.Node.FrameID, nil
}

// isFrameID reports a CDP frame id: 32 upper-case hex digits.
func isFrameID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isRef(s string) bool {
	if len(s) < 2 || s[0] != 'e' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// offset is where an out-of-process frame's viewport sits in the tab's
// viewport, and the iframe element holding it in its parent session.
type offset struct {
	dx, dy   float64
	ownerSid string
	owner    cdproto.BackendNodeID
	scroll   *[2]float64 // the element's session's scroll offset, when known
	// ownerScroll is the scroll offset of the document holding the
	// iframe (owner), when known.
	ownerScroll *[2]float64
}

// frameOffset finds the iframe that holds child session sid (in the tab's
// session, or in the child session of its parent frame for nested
// out-of-process frames) and the top-left of its content box.
func (a *act) frameOffset(ctx context.Context, sid string, depth int) (offset, error) {
	if sid == "" {
		return offset{}, nil
	}
	if depth > 4 {
		return offset{}, errors.New("frames nested too deep")
	}
	cs := a.e.session(a.tab, sid)
	tree, err := cdproto.Call(ctx, cs, page.GetFrameTree, cdproto.Empty{})
	if err != nil || tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return offset{}, fmt.Errorf("reading the frame's tree: %w", err)
	}
	root, parent := tree.FrameTree.Frame.ID, tree.FrameTree.Frame.ParentID
	parents := []string{""}
	if parent != "" {
		if psid, ok := a.e.child(a.tab, parent); ok {
			parents = []string{psid, ""}
		}
	}
	for _, psid := range parents {
		ps := a.e.session(a.tab, psid)
		fo, err := cdproto.Call(ctx, ps, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: root})
		if err != nil || fo.BackendNodeID == 0 {
			continue
		}
		bm, err := cdproto.Call(ctx, ps, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: fo.BackendNodeID})
		if err != nil || bm.Model == nil || len(bm.Model.Content) < 2 {
			return offset{}, fmt.Errorf("measuring the frame: %w", err)
		}
		up, err := a.frameOffset(ctx, psid, depth+1)
		if err != nil {
			return offset{}, err
		}
		return offset{dx: bm.Model.Content[0] + up.dx, dy: bm.Model.Content[1] + up.dy, ownerSid: psid, owner: fo.BackendNodeID}, nil
	}
	return offset{}, errorf(CodeFrame, "the out-of-process frame's iframe was not found in its parent; take a new snapshot")
}
