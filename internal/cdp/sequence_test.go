package cdp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

type seqCaller struct {
	method string
	params seqParams
	reply  string
}

func (f *seqCaller) Call(_ context.Context, method string, params any) (json.RawMessage, error) {
	f.method, f.params = method, params.(seqParams)
	return json.RawMessage(f.reply), nil
}

func TestSequenceIsOneRequest(t *testing.T) {
	fc := &seqCaller{reply: `{"results":[{"result":{"result":{"type":"number","value":2}}},{"error":{"code":"cdp_error","message":"no"}},{"skipped":true}]}`}
	s := NewRouter().Session(fc, 7).Child("S1")
	yes := true
	got, err := s.Sequence(t.Context(),
		Step{Method: runtime.Evaluate.Method, Params: runtime.EvaluateParams{Expression: "1+1", ReturnByValue: &yes}, StopOnException: true},
		NewStep(page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}),
		Step{Method: page.StopScreencast.Method, Always: true, Child: "S2"})
	require.NoError(t, err)
	require.Equal(t, "cdp.sequence", fc.method)
	require.Equal(t, 7, fc.params.TabID)
	require.Len(t, fc.params.Steps, 3)
	require.Equal(t, "S1", fc.params.Steps[1].SessionID, "a step runs in the session's own target")
	require.Equal(t, "S2", fc.params.Steps[2].SessionID, "a step with Child runs in that child session")
	require.Equal(t, seqStep{Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"1+1","returnByValue":true}`), SessionID: "S1", StopOnException: true}, fc.params.Steps[0])
	require.JSONEq(t, `{}`, string(fc.params.Steps[2].Params))
	require.True(t, fc.params.Steps[2].Always)

	ev, err := ResultOf(runtime.Evaluate, got[0])
	require.NoError(t, err)
	require.JSONEq(t, `2`, string(ev.Result.Value))
	var perr *protocol.Error
	require.ErrorAs(t, got[1].Decode("Page.captureScreenshot", nil), &perr)
	require.Equal(t, "cdp_error", perr.Code)
	require.ErrorContains(t, got[2].Decode("Page.stopScreencast", nil), "skipped")

	fc.reply = `{"results":[]}`
	_, err = s.Sequence(t.Context(), Step{Method: "Page.enable"})
	require.ErrorContains(t, err, "0 results for 1 steps")
}

func TestSequenceBackgroundSteps(t *testing.T) {
	fc := &seqCaller{reply: `{"results":[{"result":{}},{"background":true}]}`}
	s := NewRouter().Session(fc, 7)
	got, err := s.Sequence(t.Context(), Step{Method: "Page.enable"}, Step{Method: page.StopScreencast.Method, Always: true, Background: true})
	require.NoError(t, err)
	require.True(t, fc.params.Steps[1].Background)
	require.False(t, fc.params.Steps[0].Background)
	raw, err := json.Marshal(fc.params.Steps[1])
	require.NoError(t, err)
	require.JSONEq(t, `{"method":"Page.stopScreencast","params":{},"always":true,"background":true}`, string(raw))
	require.True(t, got[1].Background)
	require.ErrorContains(t, got[1].Decode(page.StopScreencast.Method, nil), "background")

	_, err = s.Sequence(t.Context(), Step{Method: page.StopScreencast.Method, Background: true}, Step{Method: "Page.enable"})
	require.ErrorContains(t, err, "background steps come last")
}

// A page's text that is not UTF-8 (a lone surrogate) does not fail the
// whole sequence: the step's own result carries it.
func TestSequenceReplyWithTextThatIsNotUTF8(t *testing.T) {
	fc := &seqCaller{reply: `{"results":[{"result":{"result":{"type":"string","value":"\ud83d cut"}}}]}`}
	got, err := NewRouter().Session(fc, 7).Sequence(t.Context(), Step{Method: runtime.Evaluate.Method})
	require.NoError(t, err)
	require.Contains(t, string(got[0].Result), `\ud83d cut`)
}

// textCaller answers like an extension that keeps the texts it was sent.
type textCaller struct {
	kept  map[string]string
	calls []seqParams
}

func (f *textCaller) Call(_ context.Context, _ string, params any) (json.RawMessage, error) {
	p := params.(seqParams)
	f.calls = append(f.calls, p)
	maps.Copy(f.kept, p.Texts)
	var out []string
	for _, st := range p.Steps {
		if st.ExpressionText == "" {
			out = append(out, `{"result":{}}`)
			continue
		}
		text, ok := f.kept[st.ExpressionText]
		if !ok {
			return nil, &protocol.Error{Code: protocol.CodeUnknownText, Message: "not kept", Retryable: true}
		}
		v, _ := json.Marshal(text)
		out = append(out, `{"result":{"result":{"type":"string","value":`+string(v)+`}}}`)
	}
	return json.RawMessage(`{"results":[` + strings.Join(out, ",") + `]}`), nil
}

func TestSequenceNamesLongExpressionsByTheirHash(t *testing.T) {
	fc := &textCaller{kept: map[string]string{}}
	s := NewRouter().Session(fc, 7)
	long := "(() => 'mask')() // " + strings.Repeat("x", keepAbove)
	sum := sha256.Sum256([]byte(long))
	key := hex.EncodeToString(sum[:])
	steps := []Step{
		{Method: runtime.Evaluate.Method, Params: runtime.EvaluateParams{Expression: long}},
		{Method: runtime.Evaluate.Method, Params: runtime.EvaluateParams{Expression: "1+1"}},
	}
	got, err := s.Sequence(t.Context(), steps...)
	require.NoError(t, err)
	ev, err := ResultOf(runtime.Evaluate, got[0])
	require.NoError(t, err)
	require.JSONEq(t, string(must(json.Marshal(long))), string(ev.Result.Value))
	require.Len(t, fc.calls, 2, "not kept: sent again with the text")
	require.Empty(t, fc.calls[0].Texts)
	require.Equal(t, map[string]string{key: long}, fc.calls[1].Texts)
	for _, c := range fc.calls {
		require.Equal(t, key, c.Steps[0].ExpressionText)
		require.NotContains(t, string(c.Steps[0].Params), "mask", "the text is never in the step")
		require.Empty(t, c.Steps[1].ExpressionText, "a short expression goes as it is")
		require.Contains(t, string(c.Steps[1].Params), "1+1")
	}

	fc.calls = nil
	_, err = s.Sequence(t.Context(), steps...)
	require.NoError(t, err)
	require.Len(t, fc.calls, 1, "kept: one request, without the text")
	require.Empty(t, fc.calls[0].Texts)
	raw, err := json.Marshal(fc.calls[0])
	require.NoError(t, err)
	require.Less(t, len(raw), 1024)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// partsCaller answers like the extension does for a step marked ahead: its
// result comes as a part before the reply, which names it {ahead: true}.
type partsCaller struct {
	params seqParams
	parts  []string
	reply  string
}

func (f *partsCaller) Call(ctx context.Context, _ string, params any) (json.RawMessage, error) {
	f.params = params.(seqParams)
	if p := protocol.PartsOf(ctx); p != nil {
		for _, x := range f.parts {
			p.Add(json.RawMessage(x))
		}
	}
	return json.RawMessage(f.reply), nil
}

// A step marked Ahead asks the extension to send its result before the
// reply; Sequence returns it in its place once the reply is in, and fails
// when the reply names a result sent ahead that never came.
func TestSequenceStepSentAhead(t *testing.T) {
	fc := &partsCaller{
		parts: []string{`{"step":1,"result":{"data":"aW1n"}}`},
		reply: `{"results":[{"result":{}},{"ahead":true},{"result":{"result":{"type":"string","value":"ok"}}}]}`,
	}
	s := NewRouter().Session(fc, 7)
	shot := NewStep(page.CaptureScreenshot, page.CaptureScreenshotParams{})
	shot.Ahead = true
	got, err := s.Sequence(t.Context(), Step{Method: "Page.enable"}, shot, Step{Method: runtime.Evaluate.Method})
	require.NoError(t, err)
	require.True(t, fc.params.Steps[1].Ahead)
	require.False(t, fc.params.Steps[0].Ahead)
	r, err := ResultOf(page.CaptureScreenshot, got[1])
	require.NoError(t, err)
	require.Equal(t, "img", string(r.Data))

	fc.parts = nil
	_, err = s.Sequence(t.Context(), Step{Method: "Page.enable"}, shot, Step{Method: runtime.Evaluate.Method})
	require.ErrorContains(t, err, "never came")

	// A reply that carries the result itself (an extension that does not
	// send ahead) is taken as it is.
	fc.reply = `{"results":[{"result":{}},{"result":{"data":"b3du"}},{"result":{}}]}`
	got, err = s.Sequence(t.Context(), Step{Method: "Page.enable"}, shot, Step{Method: runtime.Evaluate.Method})
	require.NoError(t, err)
	r, err = ResultOf(page.CaptureScreenshot, got[1])
	require.NoError(t, err)
	require.Equal(t, "own", string(r.Data))
}
