package actions

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/gasoline-mcp/gasoline/internal/cdp"
	"github.com/gasoline-mcp/gasoline/internal/sensitive"
	"github.com/gasoline-mcp/gasoline/internal/visible"
)

// The page helpers, installed once per isolated world.
//
//go:embed page.js
var pageJS string

//go:embed forms.js
var formsJS string

// helpersJS installs the shared visibility and sensitive-element tests,
// then the helpers; put together on first use, not at every start of
// gasoline-host (tens of kilobytes the relays never need).
var helpersJS = sync.OnceValue(func() string {
	return visible.JS() + ";\n" + sensitive.JS + ";\n" + pageJS + ";\n" + formsJS
})

// worldName is Gasoline's isolated world (the snapshot walker's too).
const worldName = "gasoline"

// objectGroup holds the remote objects actions create; they go with their
// document, and the engine releases the group after each action.
const objectGroup = "gasoline-actions"

// errWorldGone reports that a world's document was replaced meanwhile.
var errWorldGone = errors.New("actions: the page's document was replaced")

// rootFrame returns the root frame of a session (the tab's main frame, or
// an out-of-process iframe's).
// cachedRoot returns the root frame of a session if an action read it
// already, else "".
func (t *tabState) cachedRoot(sid string) cdproto.FrameID {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mainFrame[sid]
}

func (t *tabState) rootFrame(ctx context.Context, s cdproto.Session, sid string) (cdproto.FrameID, error) {
	t.mu.Lock()
	f, ok := t.mainFrame[sid]
	t.mu.Unlock()
	if ok {
		return f, nil
	}
	tree, err := cdproto.Call(ctx, s, page.GetFrameTree, cdproto.Empty{})
	if err != nil {
		return "", fmt.Errorf("reading the frame tree: %w", err)
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return "", errors.New("the tab has no main frame")
	}
	f = tree.FrameTree.Frame.ID
	t.mu.Lock()
	t.mainFrame[sid] = f
	t.mu.Unlock()
	return f, nil
}

// world returns the execution context of Gasoline's isolated world in a
// frame of a session (its root frame when frame is empty), creating the
// world and installing the helpers when needed.
func (a *act) world(ctx context.Context, sid string, frame cdproto.FrameID) (runtime.ExecutionContextID, cdproto.FrameID, error) {
	s := a.e.session(a.tab, sid)
	if frame == "" {
		f, err := a.t.rootFrame(ctx, s, sid)
		if err != nil {
			return 0, "", err
		}
		frame = f
	}
	k := worldKey{session: sid, frame: frame}
	a.t.mu.Lock()
	ec, ok := a.t.worlds[k]
	a.t.mu.Unlock()
	if ok {
		return ec, frame, nil
	}
	no := false
	w, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: worldName, GrantUniveralAccess: &no})
	if err != nil {
		if cdp.Gone(err) {
			a.forgetWorld(sid, frame)
			return 0, "", errWorldGone
		}
		return 0, "", fmt.Errorf("creating the isolated world: %w", err)
	}
	res, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: helpersJS() + a.setMaskJS(), ContextID: w.ExecutionContextID, Silent: &no})
	if err != nil {
		return 0, "", fmt.Errorf("installing the page helpers: %w", err)
	}
	if res.ExceptionDetails != nil {
		return 0, "", fmt.Errorf("installing the page helpers: %s", res.ExceptionDetails.Text)
	}
	a.t.mu.Lock()
	a.t.worlds[k] = w.ExecutionContextID
	a.t.mu.Unlock()
	return w.ExecutionContextID, frame, nil
}

// setMaskJS is the statement that gives a world's helpers the sensitive
// selectors (internal/sensitive) their descriptions honour.
func (a *act) setMaskJS() string {
	b, _ := json.Marshal(a.mask)
	return ";\nglobalThis.__gasolineActions.setMask(" + string(b) + ");"
}

// syncMask drops the tab's cached worlds when the sensitive selectors
// changed since they were installed (the redaction policy was edited), so
// the next call installs the new ones with the helpers.
func (a *act) syncMask() {
	key := strings.Join(a.mask, "\x00")
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	if a.t.maskKey != key {
		clear(a.t.worlds)
		a.t.maskKey = key
	}
}

// forgetAll drops every cached world of the tab.
func (a *act) forgetAll() {
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	clear(a.t.worlds)
	clear(a.t.mainFrame)
}

// forgetWorld drops a cached world (its document went away); an empty
// frame drops every world of the session and its root frame.
func (a *act) forgetWorld(sid string, frame cdproto.FrameID) {
	a.t.mu.Lock()
	defer a.t.mu.Unlock()
	for k := range a.t.worlds {
		if k.session == sid && (frame == "" || k.frame == frame) {
			delete(a.t.worlds, k)
		}
	}
	if frame == "" || a.t.mainFrame[sid] == frame {
		delete(a.t.mainFrame, sid)
	}
}

// jsCall is one Runtime.callFunctionOn: on an object (this) or in a
// context.
type jsCall struct {
	fn      string
	object  runtime.RemoteObjectID
	context runtime.ExecutionContextID
	args    []any
	objArgs []runtime.RemoteObjectID // passed after args
	await   bool
	gesture bool
}

// call runs c and returns its remote object: by value when byValue,
// else a handle (and with deep serialization, the node's backend id).
func call(ctx context.Context, s cdproto.Session, c jsCall, mode resultMode) (*runtime.RemoteObject, error) {
	p := runtime.CallFunctionOnParams{FunctionDeclaration: c.fn, ObjectID: c.object, ExecutionContextID: c.context, ObjectGroup: objectGroup}
	yes := true
	switch mode {
	case byValue:
		p.ReturnByValue = &yes
	case asNode, asWrapper:
		depth := int64(mode - asNode)
		p.SerializationOptions = &runtime.SerializationOptions{Serialization: runtime.SerializationOptionsSerializationDeep, MaxDepth: &depth}
	}
	if c.await {
		p.AwaitPromise = &yes
	}
	if c.gesture {
		p.UserGesture = &yes
	}
	for _, arg := range c.args {
		b, err := jsonv2.Marshal(arg)
		if err != nil {
			return nil, fmt.Errorf("actions: encoding an argument: %w", err)
		}
		p.Arguments = append(p.Arguments, &runtime.CallArgument{Value: jsonv2.Value(b)})
	}
	for _, id := range c.objArgs {
		p.Arguments = append(p.Arguments, &runtime.CallArgument{ObjectID: id})
	}
	res, err := cdproto.Call(ctx, s, runtime.CallFunctionOn, p)
	if err != nil {
		if cdp.Gone(err) {
			return nil, errWorldGone
		}
		return nil, err
	}
	if ex := res.ExceptionDetails; ex != nil {
		return nil, thrown(ex)
	}
	return res.Result, nil
}

type resultMode int

const (
	byValue   resultMode = iota
	asHandle             // a handle (objectId)
	asNode               // a handle, and the node's backend id
	asWrapper            // a handle, and the object's properties one level deep (nodes as backend ids)
)

// thrown turns an exception from the helpers into a tool error, or a
// plain error naming the exception.
func thrown(ex *runtime.ExceptionDetails) error {
	if o := ex.Exception; o != nil && o.Type == runtime.RemoteObjectTypeString {
		var s string
		if jsonv2.Unmarshal(o.Value, &s) == nil {
			if te := pageErr(s); te != nil {
				return te
			}
			return fmt.Errorf("the page threw %q", s)
		}
	}
	msg := ex.Text
	if o := ex.Exception; o != nil && o.Description != "" {
		msg = strings.SplitN(o.Description, "\n", 2)[0]
	}
	return fmt.Errorf("the page helpers failed: %s", msg)
}

// decode reads a by-value result into v.
func decode(o *runtime.RemoteObject, v any) error {
	if o == nil || len(o.Value) == 0 {
		return nil
	}
	// encoding/json: the helpers' keys are camelCase, the structs' fields
	// are matched case-insensitively.
	if err := json.Unmarshal(o.Value, v); err != nil {
		return fmt.Errorf("actions: decoding a page result: %w", err)
	}
	return nil
}

// callValue runs c by value and decodes the result into v.
func callValue(ctx context.Context, s cdproto.Session, c jsCall, v any) error {
	o, err := call(ctx, s, c, byValue)
	if err != nil {
		return err
	}
	return decode(o, v)
}

// deepInto decodes a deep-serialized object one level deep into v (its
// properties by name; nodes become their backend id) and returns the
// backend id of its "el" property.
func deepInto(d *runtime.DeepSerializedValue, v any) (cdproto.BackendNodeID, error) {
	if d == nil || d.Type != "object" {
		return 0, errors.New("actions: the page answered without the element")
	}
	var entries [][2]json.RawMessage
	if err := json.Unmarshal(d.Value, &entries); err != nil {
		return 0, fmt.Errorf("actions: decoding a page result: %w", err)
	}
	plain := map[string]any{}
	var backend cdproto.BackendNodeID
	for _, e := range entries {
		var k string
		var item struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(e[0], &k) != nil || json.Unmarshal(e[1], &item) != nil {
			continue
		}
		switch item.Type {
		case "node":
			var n struct {
				BackendNodeID cdproto.BackendNodeID `json:"backendNodeId"`
			}
			_ = json.Unmarshal(item.Value, &n)
			if k == "el" {
				backend = n.BackendNodeID
			}
		case "null", "undefined":
			plain[k] = nil
		case "string", "boolean":
			plain[k] = item.Value
		case "number":
			var f float64
			if json.Unmarshal(item.Value, &f) == nil { // NaN and Infinity come as strings: dropped
				plain[k] = f
			}
		}
	}
	b, _ := json.Marshal(plain)
	if err := json.Unmarshal(b, v); err != nil {
		return 0, fmt.Errorf("actions: decoding a page result: %w", err)
	}
	if backend == 0 {
		return 0, errors.New("actions: the page answered without the element")
	}
	return backend, nil
}
