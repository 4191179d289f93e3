package capture

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floodParams appends the params of the i-th console call of a chatty page,
// as Chrome sends them: a framework log line with an object argument and a
// three-frame stack; every 100th call is a console.error of 7 messages.
func floodParams(buf []byte, i int) []byte {
	const stack = `"stackTrace":{"callFrames":[{"functionName":"render","scriptId":"42","url":"http://localhost:3000/static/js/main.chunk.js","lineNumber":1234,"columnNumber":17},{"functionName":"commitRoot","scriptId":"40","url":"http://localhost:3000/static/js/vendors.chunk.js","lineNumber":20311,"columnNumber":9},{"functionName":"","scriptId":"42","url":"http://localhost:3000/static/js/main.chunk.js","lineNumber":88,"columnNumber":3}]}`
	if i%100 == 0 {
		return fmt.Appendf(buf, `{"type":"error","args":[{"type":"string","value":"request %d failed"}],"executionContextId":3,"timestamp":%d.25,%s}`,
			i%7, 1730000000000+int64(i), stack)
	}
	return fmt.Appendf(buf, `{"type":"log","args":[{"type":"string","value":"[app] render #%d took %dms"},{"type":"object","className":"Object","description":"Object","objectId":"-5823423417539151463.3.%d","preview":{"type":"object","description":"Object","overflow":false,"properties":[{"name":"id","type":"number","value":"%d"},{"name":"state","type":"string","value":"ready"},{"name":"props","type":"object","value":"Object"}]}}],"executionContextId":3,"timestamp":%d.25,%s}`,
		i, i%17, i, i, 1730000000000+int64(i), stack)
}

// floodText is the text the i-th flood call is stored with.
func floodText(i int) string {
	if i%100 == 0 {
		return fmt.Sprintf("request %d failed", i%7)
	}
	return fmt.Sprintf(`[app] render #%d took %dms {id: %d, state: "ready", props: Object}`, i, i%17, i)
}

func TestFloodStaysBounded(t *testing.T) {
	const n = 100_000
	s := newTestStore(t, nil) // default limits: 5,000 entries / 8 MiB
	lim := s.opts.Console
	var buf []byte // reused: the store must keep nothing of the params
	ingest := func(from, to int) {
		for i := from; i < to; i++ {
			buf = floodParams(buf[:0], i)
			s.Ingest(tabID, "Runtime.consoleAPICalled", buf)
		}
	}
	ingest(0, 10)
	early := s.Logs(tabID, LogQuery{})
	require.Len(t, early.Entries, 10)
	cursor := early.Next // a reader that saw the first 10 entries

	ingest(10, n)
	st, ok := s.TabStats(tabID)
	require.True(t, ok)
	cs := st.Kinds[KindConsole]
	assert.Equal(t, lim.MaxEntries, cs.Entries, "entries at the limit")
	assert.LessOrEqual(t, cs.Bytes, lim.MaxBytes, "bytes under the limit")
	assert.Equal(t, uint64(n-lim.MaxEntries), cs.Evicted, "every evicted entry counted")
	assert.Zero(t, st.Malformed)

	p := s.Logs(tabID, LogQuery{After: cursor, Limit: 100})
	require.Len(t, p.Entries, 100)
	assert.Equal(t, uint64(n-lim.MaxEntries-10), p.Missed, "the early cursor reports what it missed")
	assert.Equal(t, uint64(n-lim.MaxEntries+1), p.Entries[0].Seq, "and resumes at the oldest kept entry")
	assert.True(t, p.Truncated)

	// Page through everything kept; each entry is intact.
	got, after := 0, p.Next-100
	for {
		p := s.Logs(tabID, LogQuery{After: after, Limit: MaxLimit})
		assert.Zero(t, p.Missed)
		for _, e := range p.Entries {
			i := int(e.Seq) - 1
			if e.Text != floodText(i) || e.URL != "http://localhost:3000/static/js/main.chunk.js" || e.Line != 1235 {
				t.Fatalf("entry %d: got %q at %s:%d", e.Seq, e.Text, e.URL, e.Line)
			}
			got++
		}
		after = p.Next
		if !p.Truncated {
			break
		}
	}
	assert.Equal(t, lim.MaxEntries, got)

	// Error groups count every error since the start, evicted or not.
	groups := s.Errors(tabID)
	require.Equal(t, 7, len(groups), "groups")
	total := 0
	for _, g := range groups {
		assert.True(t, strings.HasPrefix(g.Message, "request "), g.Message)
		total += g.Count
	}
	assert.Equal(t, n/100, total)
}

func TestFloodByteLimit(t *testing.T) {
	const n = 20_000
	s := newTestStore(t, &Options{Console: Limits{MaxEntries: 5000, MaxBytes: 1 << 20}})
	text := strings.Repeat("x", 4000)
	var buf []byte
	for i := range n {
		buf = fmt.Appendf(buf[:0], `{"type":"log","args":[{"type":"string","value":"%d %s"}],"executionContextId":1,"timestamp":1730000000000}`, i, text)
		s.Ingest(tabID, "Runtime.consoleAPICalled", buf)
	}
	cs := s.Stats().Kinds[KindConsole]
	assert.Less(t, cs.Entries, 5000, "the byte limit binds first")
	assert.Greater(t, cs.Entries, 200)
	assert.LessOrEqual(t, cs.Bytes, int64(1<<20))
	assert.Equal(t, uint64(n-cs.Entries), cs.Evicted)
	last := s.Logs(tabID, LogQuery{After: uint64(n - 1)}).Entries
	require.Len(t, last, 1)
	assert.True(t, strings.HasPrefix(last[0].Text, fmt.Sprintf("%d x", n-1)))
}
