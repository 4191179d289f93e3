package cdp

import (
	"context"
	"encoding/json"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

type fakeCaller struct {
	method string
	params sendParams
	result string
	err    error
}

func (f *fakeCaller) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	f.method = method
	f.params = params.(sendParams)
	return json.RawMessage(f.result), f.err
}

func TestTypedCallThroughRelay(t *testing.T) {
	fc := &fakeCaller{result: `{"result":{"type":"number","value":2,"description":"2"}}`}
	s := NewRouter().Session(fc, 7)
	yes := true
	res, err := cdproto.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1+1", ReturnByValue: &yes})
	require.NoError(t, err)
	require.Equal(t, "cdp.send", fc.method)
	require.Equal(t, 7, fc.params.TabID)
	require.Equal(t, "Runtime.evaluate", fc.params.Method)
	require.JSONEq(t, `{"expression":"1+1","returnByValue":true}`, string(fc.params.Params))
	require.Empty(t, fc.params.SessionID)
	require.JSONEq(t, `2`, string(res.Result.Value))

	child := s.Child("S1")
	_, err = cdproto.Call(t.Context(), child, runtime.Evaluate, runtime.EvaluateParams{Expression: "x"})
	require.NoError(t, err)
	require.Equal(t, "S1", fc.params.SessionID)
}

func TestCallErrorsPassThrough(t *testing.T) {
	fc := &fakeCaller{err: &protocol.Error{Code: protocol.CodeTabClosed, Message: "gone"}}
	s := NewRouter().Session(fc, 7)
	_, err := cdproto.Call(t.Context(), s, page.Navigate, page.NavigateParams{URL: "http://127.0.0.1/"})
	var pe *protocol.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, protocol.CodeTabClosed, pe.Code)
}

func TestRouterDeliversOnlyMatchingEvents(t *testing.T) {
	r := NewRouter()
	s := r.Session(&fakeCaller{}, 1)
	ch, cancel := s.Subscribe("Page.loadEventFired")
	defer cancel()
	r.Dispatch(2, "", "Page.loadEventFired", json.RawMessage(`{"timestamp":1}`))  // other tab
	r.Dispatch(1, "S", "Page.loadEventFired", json.RawMessage(`{"timestamp":2}`)) // child session
	r.Dispatch(1, "", "Page.domContentEventFired", json.RawMessage(`{}`))         // other method
	r.Dispatch(1, "", "Page.loadEventFired", json.RawMessage(`{"timestamp":3}`))
	require.JSONEq(t, `{"timestamp":3}`, string(<-ch))
	require.Empty(t, ch)
}

func TestTypedEventsStopWhenTabForgotten(t *testing.T) {
	r := NewRouter()
	s := r.Session(&fakeCaller{}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	events := cdproto.Events(ctx, s, page.LoadEventFired)
	r.Dispatch(1, "", "Page.loadEventFired", json.RawMessage(`{"timestamp":12.5}`))
	r.Forget(1)
	var got []float64
	for ev, err := range events {
		require.NoError(t, err)
		got = append(got, float64(ev.Timestamp))
	}
	require.Equal(t, []float64{12.5}, got)
}

func TestSlowSubscriberDropsInsteadOfBlocking(t *testing.T) {
	r := NewRouter()
	ch, cancel := r.Session(&fakeCaller{}, 1).Subscribe("Network.dataReceived")
	for range SubscriberBuffer + 10 {
		r.Dispatch(1, "", "Network.dataReceived", json.RawMessage(`{}`))
	}
	require.Equal(t, uint64(10), r.Dropped())
	require.Len(t, ch, SubscriberBuffer)
	cancel()
	cancel() // idempotent
	r.Forget(1)
	_, open := <-ch
	for open {
		_, open = <-ch
	}
}
