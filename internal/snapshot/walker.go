package snapshot

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/visible"
)

// walkerSrc is the in-page walker, a function run by Runtime.callFunctionOn.
//
//go:embed walker.js
var walkerSrc string

// installWalkerJS keeps the walker, with the shared visibility test
// installed first, in Gasoline's isolated world, once per world
// (worldContext): the two are ~80 KB, and sent with every snapshot they
// crossed the link and were compiled each time. The page cannot reach an
// isolated world's globals. It is put together on first use, not at every
// start of gasoline-host.
var installWalkerJS = sync.OnceValue(func() string {
	walker := visible.Wrap("function (...args) {\n" + sensitive.JS + "\nreturn (" + walkerSrc + ").apply(this, args);\n}")
	return "function () { globalThis.__gasolineWalk = " + walker + "; globalThis.__gasolineWalkCall = " + walkJS + "; return true; }"
})

// walkJS runs the walker, installed with it (installWalkerJS). Given
// a.render (a full snapshot of a tab's main frame) it makes sure the page
// had drawn its first content (renderedJS, render.go) — in the same round
// trip. The walk goes first: when it showed text of the main document's
// body (drewText) the body draws text, which is all renderedJS would have
// found out, so its whole-body read (innerText: ~1.3 ms on the
// ~3,000-element page) is skipped. Otherwise renderedJS decides as before;
// when it has to wait, the page is walked again once it drew (numbering
// new elements after the first walk's) or the bound ended, and the answer
// says when nothing came.
const walkJS = `function (a) {
  const walk = globalThis.__gasolineWalk;
  const r = walk.call(this, a);
  const drew = r.drewText;
  delete r.drewText;
  if (!a.render || drew) return r;
  const drawn = (` + renderedJS + `)(a.render);
  if (drawn === true) return r;
  return drawn.then((ok) => {
    const again = walk.call(this, { ...a, next: r.next });
    delete again.drewText;
    if (!ok) again.notRendered = true;
    return again;
  });
}`

// walkCallJS is what each snapshot sends: a call of the installed walkJS.
// Sending walkJS itself (~2 KB with renderedJS) had every snapshot carry
// it over every hop of the link and V8 compile it again.
const walkCallJS = `function (a) {
  const call = globalThis.__gasolineWalkCall;
  if (typeof call !== 'function') throw new Error('the snapshot walker is not installed in this world; retry');
  return call.call(this, a);
}`

// installWalker puts the walker into a world just made.
func installWalker(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID) error {
	if _, err := callIn(ctx, s, ec, installWalkerJS(), true); err != nil {
		return fmt.Errorf("snapshot: installing the walker: %w", err)
	}
	return nil
}

// ElementJS is a function expression that returns the element behind ref
// number n of the latest snapshot, run in the snapshot's world of the
// element's frame (Located.Context), or null when it is gone (removed, or
// its document left its frame).
const ElementJS = `((n) => {
  const W = globalThis.__gasoline;
  const el = W && W.byN.get(n)?.deref();
  return el && el.isConnected && el.ownerDocument.defaultView ? el : null;
})`

// resolveJS returns the element behind ref n.
const resolveJS = `function (n) { return ` + ElementJS + `(n) }`

// errRootGone: Options.Root's element left the page (the walker answers
// {gone: true}).
var errRootGone = errors.New("snapshot: the root ref's element is gone")

// worldName names Gasoline's isolated world in every frame.
const worldName = "gasoline"

// errContextGone reports that an isolated world no longer exists: its
// document was replaced.
var errContextGone = errors.New("snapshot: isolated world is gone")

// world addresses one frame's isolated world: a CDP session (the tab's, or
// an out-of-process iframe's child session) and a frame in it.
type world struct {
	session string
	frame   cdproto.FrameID
}

type walkArgs struct {
	Next    int    `json:"next"`
	Reset   bool   `json:"reset,omitzero"`
	Root    string `json:"root,omitzero"`
	RootRef int    `json:"rootRef,omitzero"`
	MaxName int    `json:"maxName,omitzero"`
	MaxText int    `json:"maxText,omitzero"`
	// Mask are the sensitive selectors (internal/sensitive).
	Mask []string `json:"mask,omitempty"`
	// Render bounds, in ms, the wait for the page's first rendered
	// content before the walk (render.go); 0: no wait.
	Render int64 `json:"render,omitzero"`
}

type walkResult struct {
	Records string         `json:"records"`
	Next    int            `json:"next"`
	Nodes   int            `json:"nodes"`
	Hidden  int            `json:"hidden"` // text runs and names left out: no person sees them
	Why     map[string]int `json:"why"`    // Hidden by reason (internal/visible)
	MS      float64        `json:"ms"`     // time spent in the page
	Gone    bool           `json:"gone"`   // the root ref's element left the page
	// NotRendered: the page had drawn nothing when the Render wait ended.
	NotRendered bool `json:"notRendered"`
}

// createWorld makes Gasoline's isolated world in frame (the session's main
// frame when frame is empty) and returns its execution context.
func createWorld(ctx context.Context, s cdproto.Session, frame cdproto.FrameID) (runtime.ExecutionContextID, cdproto.FrameID, error) {
	if frame == "" {
		tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
		if err != nil {
			return 0, "", fmt.Errorf("snapshot: reading the frame tree: %w", err)
		}
		if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
			return 0, "", errors.New("snapshot: the tab has no main frame")
		}
		frame = tree.FrameTree.Frame.ID
	}
	no := false
	res, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: worldName, GrantUniveralAccess: &no})
	if err != nil {
		return 0, "", fmt.Errorf("snapshot: creating the isolated world: %w", err)
	}
	return res.ExecutionContextID, frame, nil
}

// callIn runs fn(args…) in an execution context. byValue returns JSON;
// otherwise the result is a remote object (an element, or null).
func callIn(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID, fn string, byValue bool, args ...any) (*runtime.RemoteObject, error) {
	yes := true // the walker answers a promise while it waits for a first render
	p := runtime.CallFunctionOnParams{FunctionDeclaration: fn, ExecutionContextID: ec, ReturnByValue: &byValue, AwaitPromise: &yes, ObjectGroup: objectGroup}
	for _, a := range args {
		b, err := jsonv2.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("snapshot: encoding walker argument: %w", err)
		}
		p.Arguments = append(p.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
	}
	res, err := cdproto.Call(ctx, s, runtime.CallFunctionOn, p)
	if err != nil {
		if cdp.ContextGone(err) {
			return nil, errContextGone
		}
		return nil, err
	}
	if res.ExceptionDetails != nil {
		msg := res.ExceptionDetails.Text
		if e := res.ExceptionDetails.Exception; e != nil && e.Description != "" {
			msg = strings.SplitN(e.Description, "\n", 2)[0]
		}
		return nil, &pageError{msg: msg}
	}
	return res.Result, nil
}

// pageError is an exception thrown by the walker in the page.
type pageError struct{ msg string }

func (e *pageError) Error() string { return "snapshot: the page walker failed: " + e.msg }

// runWalker runs the walker in a world and decodes its records.
func runWalker(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID, a walkArgs) (walkResult, error) {
	obj, err := callIn(ctx, s, ec, walkCallJS, true, a)
	if err != nil {
		return walkResult{}, err
	}
	var r walkResult
	if err := jsonv2.Unmarshal(obj.Value, &r); err != nil {
		return walkResult{}, fmt.Errorf("snapshot: decoding walker result: %w", err)
	}
	if r.Gone {
		return walkResult{}, errRootGone
	}
	return r, nil
}

// objectGroup holds the remote objects a snapshot's lookups create; a full
// snapshot releases it.
const objectGroup = "gasoline-snapshot"

// backendOf returns the backend node id of the element behind ref n in a
// world in one round trip (deep serialization carries it), or 0 when the
// element is gone.
func backendOf(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID, n int) (cdproto.BackendNodeID, error) {
	zero := int64(0)
	arg, _ := jsonv2.Marshal(n)
	res, err := cdproto.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: resolveJS, ExecutionContextID: ec, ObjectGroup: objectGroup,
		Arguments:            []*runtime.CallArgument{{Value: jsonv2.Value(arg)}},
		SerializationOptions: &runtime.SerializationOptions{Serialization: runtime.SerializationOptionsSerializationDeep, MaxDepth: &zero},
	})
	if err != nil {
		if cdp.ContextGone(err) {
			return 0, errContextGone
		}
		return 0, err
	}
	if res.ExceptionDetails != nil {
		return 0, &pageError{msg: res.ExceptionDetails.Text}
	}
	d := res.Result.DeepSerializedValue
	if d == nil || d.Type != "node" {
		return 0, nil
	}
	var v struct {
		BackendNodeID cdproto.BackendNodeID `json:"backendNodeId"`
	}
	if err := jsonv2.Unmarshal(d.Value, &v); err != nil {
		return 0, fmt.Errorf("snapshot: decoding the resolved node: %w", err)
	}
	return v.BackendNodeID, nil
}

// nodeOf describes the element fn(arg) returns in a world (resolveJS:
// the element behind a ref), or returns (nil, nil) when fn returns null.
func nodeOf(ctx context.Context, s cdproto.Session, ec runtime.ExecutionContextID, fn string, arg any) (*cdproto.Node, error) {
	obj, err := callIn(ctx, s, ec, fn, false, arg)
	if err != nil {
		return nil, err
	}
	if obj.ObjectID == "" {
		return nil, nil
	}
	d, err := cdproto.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj.ObjectID})
	if err != nil {
		return nil, fmt.Errorf("snapshot: describing an element: %w", err)
	}
	if d.Node == nil {
		return nil, nil
	}
	return d.Node, nil
}
