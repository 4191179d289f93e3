package actions

import (
	"context"
	"errors"
	"fmt"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Target is where an action acts: a ref from the latest snapshot, else a
// selector (CSS or semantic), else a point in the viewport. Frame (a ref
// or selector of an iframe, its name, id or URL substring) scopes a
// selector to that frame; a ref needs no frame.
type Target struct {
	Ref      string   `json:"ref,omitempty"`
	Selector string   `json:"selector,omitempty"`
	X        *float64 `json:"x,omitempty"`
	Y        *float64 `json:"y,omitempty"`
	Frame    string   `json:"frame,omitempty"`
}

func (t Target) isPoint() bool { return t.Ref == "" && t.Selector == "" && t.X != nil && t.Y != nil }
func (t Target) isEmpty() bool { return t.Ref == "" && t.Selector == "" && (t.X == nil || t.Y == nil) }

// String names the target as the agent gave it.
func (t Target) String() string {
	switch {
	case t.Ref != "":
		return t.Ref
	case t.Selector != "":
		return t.Selector
	case t.isPoint():
		return fmt.Sprintf("(%g, %g)", *t.X, *t.Y)
	}
	return "no target"
}

// elem is a resolved element: a handle in Gasoline's world of its frame.
type elem struct {
	sid     string // the CDP session owning it ("" = the tab's)
	s       cdproto.Session
	frame   cdproto.FrameID // the world's frame
	ec      runtime.ExecutionContextID
	backend cdproto.BackendNodeID
	obj     runtime.RemoteObjectID // the element's handle; "" until needed when wrap is set
	wrap    runtime.RemoteObjectID // an object whose .el is the element (findPrep)
	desc    string
}

// handle makes sure el.obj is set: an element found with findPrep is
// reached through the object that holds it.
func (a *act) handle(ctx context.Context, el *elem) error {
	if el.obj != "" || el.wrap == "" {
		return nil
	}
	o, err := call(ctx, el.s, jsCall{fn: `function () { return this.el }`, object: el.wrap}, asHandle)
	if err != nil {
		return err
	}
	el.obj = o.ObjectID
	return nil
}

// handleOrWrap is the object a helper that takes either (this.nodeType ?
// this : this.el) runs on: the element's handle, else the object holding
// it (no round trip to fetch the handle).
func (el *elem) handleOrWrap() runtime.RemoteObjectID {
	if el.obj != "" {
		return el.obj
	}
	return el.wrap
}

// findJS runs the finder in a world.
const findJS = `function (q, strict) { return globalThis.__gasolineActions.find(q, strict) }`

// query is a selector as the page finder reads it.
type query struct {
	Selector
	Text string `json:"text"` // the selector as given, for messages
}

// resolve finds the element a target names. strict refuses a semantic
// selector that matches several visible elements. A world replaced
// meanwhile (navigation) is recreated once.
func (a *act) resolve(ctx context.Context, t Target, strict bool) (*elem, error) {
	for try := 0; ; try++ {
		el, err := a.resolveOnce(ctx, t, strict)
		if errors.Is(err, errWorldGone) && try == 0 {
			a.forgetAll()
			continue
		}
		return el, err
	}
}

func (a *act) resolveOnce(ctx context.Context, t Target, strict bool) (*elem, error) {
	switch {
	case t.Ref != "":
		return a.resolveRef(ctx, t.Ref)
	case t.Selector != "":
		sel, err := ParseSelector(t.Selector)
		if err != nil {
			return nil, errorf(CodeInvalidTarget, "selector %q: %v", t.Selector, err)
		}
		sid, frame := "", cdproto.FrameID("")
		if t.Frame != "" {
			if sid, frame, err = a.frameOf(ctx, t.Frame); err != nil {
				return nil, err
			}
		}
		return a.find(ctx, sid, frame, query{Selector: sel, Text: t.Selector}, strict)
	}
	return nil, invalid("give a target: ref (from observe snapshot), selector, or x and y")
}

// resolveRef turns a ref into a handle in its frame's world.
func (a *act) resolveRef(ctx context.Context, ref string) (*elem, error) {
	tg, err := a.e.cfg.Snapshots.Resolve(ctx, a.tab, ref)
	if err != nil {
		return nil, err
	}
	ec, frame, err := a.world(ctx, tg.SessionID, tg.FrameID)
	if err != nil {
		return nil, err
	}
	s := a.e.session(a.tab, tg.SessionID)
	r, err := cdproto.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: tg.BackendNodeID, ExecutionContextID: ec, ObjectGroup: objectGroup})
	if err != nil {
		if cdp.Gone(err) {
			return nil, errWorldGone
		}
		return nil, fmt.Errorf("resolving ref %s (%s): %w", ref, tg.Desc, err)
	}
	return &elem{sid: tg.SessionID, s: s, frame: frame, ec: ec, backend: tg.BackendNodeID, obj: r.Object.ObjectID, desc: tg.Desc}, nil
}

// find runs a selector in a frame's world.
func (a *act) find(ctx context.Context, sid string, frame cdproto.FrameID, q query, strict bool) (*elem, error) {
	ec, frame, err := a.world(ctx, sid, frame)
	if err != nil {
		return nil, err
	}
	s := a.e.session(a.tab, sid)
	o, err := call(ctx, s, jsCall{fn: findJS, context: ec, args: []any{q, strict}}, asNode)
	if err != nil {
		return nil, err
	}
	el := &elem{sid: sid, s: s, frame: frame, ec: ec, obj: o.ObjectID}
	if d := o.DeepSerializedValue; d != nil && d.Type == "node" {
		var v struct {
			BackendNodeID cdproto.BackendNodeID `json:"backendNodeId"`
		}
		if err := jsonv2.Unmarshal(d.Value, &v); err != nil {
			return nil, fmt.Errorf("actions: decoding the found node: %w", err)
		}
		el.backend = v.BackendNodeID
	}
	if el.obj == "" || el.backend == 0 {
		return nil, errorf(CodeNotFound, "no element matches %s", q.Text)
	}
	return el, nil
}

// callEl runs a helper on the element (this) and decodes its by-value
// result. An element reached through a same-origin iframe lives in that
// frame's world, where the helpers may not be installed yet: they are
// installed there on first use.
func (a *act) callEl(ctx context.Context, el *elem, fn string, out any, args ...any) error {
	if err := a.handle(ctx, el); err != nil {
		return err
	}
	c := jsCall{fn: withHelpers(fn), object: el.obj, args: args}
	err := callValue(ctx, el.s, c, out)
	if te := (*tools.Error)(nil); errors.As(err, &te) && te.Code == codeNoHelpers {
		inst := jsCall{fn: "function () {" + pageJS + ";\n" + formsJS + "}", object: el.obj}
		if _, ierr := call(ctx, el.s, inst, byValue); ierr != nil {
			return ierr
		}
		err = callValue(ctx, el.s, c, out)
	}
	return err
}

// withHelpers wraps a helper call (a function run on an element) so that
// a world without the page helpers answers the structured no_helpers
// error, which callEl branches on, instead of a TypeError.
func withHelpers(fn string) string {
	return `function (...args) {
  if (!globalThis.__gasolineActions) throw '{"code":"` + codeNoHelpers + `"}';
  return (` + fn + `).apply(this, args);
}`
}

// handleOf runs a helper on the element that returns another element and
// returns that element's handle (or "" for null).
func (a *act) handleOf(ctx context.Context, el *elem, fn string, args ...any) (*elem, error) {
	if err := a.handle(ctx, el); err != nil {
		return nil, err
	}
	o, err := call(ctx, el.s, jsCall{fn: fn, object: el.obj, args: args}, asNode)
	if err != nil || o.ObjectID == "" {
		return nil, err
	}
	out := &elem{sid: el.sid, s: el.s, frame: el.frame, ec: el.ec, obj: o.ObjectID}
	if d := o.DeepSerializedValue; d != nil && d.Type == "node" {
		var v struct {
			BackendNodeID cdproto.BackendNodeID `json:"backendNodeId"`
		}
		_ = jsonv2.Unmarshal(d.Value, &v)
		out.backend = v.BackendNodeID
	}
	return out, nil
}

// findPrepJS finds the element and prepares it in one call; the answer's
// deep serialization carries the element's backend id and the checks.
const findPrepJS = `function (q, strict, o) {
  const G = globalThis.__gasolineActions;
  const el = G.find(q, strict);
  return Object.assign({el}, G.prepare(el, o));
}`

// resolvePrep resolves a target and prepares it (prepare): for a selector
// in one round trip.
func (a *act) resolvePrep(ctx context.Context, t Target, strict, point bool) (*elem, prep, error) {
	if t.Ref != "" {
		return a.refPrep(ctx, t.Ref, point)
	}
	if t.Selector == "" {
		el, err := a.resolve(ctx, t, strict)
		if err != nil {
			return nil, prep{}, err
		}
		p, err := a.prepare(ctx, el, point)
		return el, p, err
	}
	for try := 0; ; try++ {
		el, p, err := a.findPrep(ctx, t, strict, point)
		if errors.Is(err, errWorldGone) && try == 0 {
			a.forgetAll()
			continue
		}
		return el, p, err
	}
}

func (a *act) findPrep(ctx context.Context, t Target, strict, point bool) (*elem, prep, error) {
	w, err := a.selectorWorld(ctx, t)
	if err != nil {
		return nil, prep{}, err
	}
	o, err := call(ctx, w.s, jsCall{fn: findPrepJS, context: w.ec, args: []any{w.q, strict, prepOpts(point)}}, asWrapper)
	if err != nil {
		return nil, prep{}, err
	}
	var p prep
	backend, err := deepInto(o.DeepSerializedValue, &p)
	if err != nil {
		return nil, p, err
	}
	el := &elem{sid: w.sid, s: w.s, frame: w.frame, ec: w.ec, backend: backend, wrap: o.ObjectID, desc: p.Desc}
	a.sawBefore(ctx, el, p.U, p.T)
	return el, p, a.afterPrep(ctx, p, point)
}

// selWorld is where a selector runs: its frame's world, and the selector
// as the page finder reads it.
type selWorld struct {
	sid   string
	s     cdproto.Session
	frame cdproto.FrameID
	ec    runtime.ExecutionContextID
	q     query
}

// selectorWorld parses a target's selector and finds (or makes) the world
// of the frame it is scoped to, for a call that finds and uses the element
// in one round trip.
func (a *act) selectorWorld(ctx context.Context, t Target) (selWorld, error) {
	sel, err := ParseSelector(t.Selector)
	if err != nil {
		return selWorld{}, errorf(CodeInvalidTarget, "selector %q: %v", t.Selector, err)
	}
	w := selWorld{q: query{Selector: sel, Text: t.Selector}}
	if t.Frame != "" {
		if w.sid, w.frame, err = a.frameOf(ctx, t.Frame); err != nil {
			return w, err
		}
	}
	if w.ec, w.frame, err = a.world(ctx, w.sid, w.frame); err != nil {
		return w, err
	}
	w.s = a.e.session(a.tab, w.sid)
	return w, nil
}

// refPrepJS prepares a ref's element (refJS finds it).
const refPrepJS = `(el, o) => Object.assign({el}, globalThis.__gasolineActions.prepare(el, o))`

// refPrep resolves a ref and prepares its element in one round trip in the
// snapshot's world.
func (a *act) refPrep(ctx context.Context, ref string, point bool) (*elem, prep, error) {
	el, o, err := a.refCall(ctx, ref, refPrepJS, asWrapper, prepOpts(point))
	if err != nil {
		return nil, prep{}, err
	}
	var p prep
	if el.backend, err = deepInto(o.DeepSerializedValue, &p); err != nil {
		return nil, p, err
	}
	if p.Desc != "" {
		el.desc = p.Desc
	}
	a.sawBefore(ctx, el, p.U, p.T)
	return el, p, a.afterPrep(ctx, p, point)
}

// lazyProbe reports a target whose first step reads the before probe
// itself (url and title, in the main frame): a ref (refCall), or a
// selector in the main frame. Elsewhere settle reads it when needed.
func lazyProbe(t Target) bool { return t.Ref != "" || t.Selector != "" && t.Frame == "" }
