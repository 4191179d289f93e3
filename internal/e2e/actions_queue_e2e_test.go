package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/actions"
)

// slowAPI serves /slow (answers after ?ms=) and /fail (500), readable
// from the test pages' origin.
func slowAPI(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "slow data")
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		http.Error(w, "nope", http.StatusInternalServerError)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestE2EActionPerTabOrder(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s := f.page(t, ctx, "form.html")
	tab := s.TabID()

	// An action holds the tab (a wait for #go), three types queue behind it
	// in a known order, then the test releases the wait from outside.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[0] = f.eng.WaitFor(ctx, tab, actions.WaitArgs{Selector: "#go", Timeout: 30 * time.Second})
	}()
	require.Eventually(t, func() bool { return f.eng.Queued(tab) == 1 }, 10*time.Second, time.Millisecond)
	for i, text := range []string{"AAA", "BBB", "CCC"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i+1] = f.eng.Type(ctx, tab, actions.TypeArgs{Target: sel("#name"), Text: text})
		}()
		require.Eventually(t, func() bool { return f.eng.Queued(tab) == i+2 }, 10*time.Second, time.Millisecond, "type %s queued", text)
	}
	assert.Equal(t, "Ada", read[string](t, ctx, s, `document.getElementById('name').value`), "nothing typed while the tab is held")
	_, err := evaluate(ctx, s, `document.body.insertAdjacentHTML('beforeend', '<p id="go">go</p>')`)
	require.NoError(t, err)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, "AdaAAABBBCCC", read[string](t, ctx, s, `document.getElementById('name').value`), "the types ran in arrival order")
	assert.Equal(t, 0, f.eng.Queued(tab))

	t.Run("a waiter whose context ends leaves the queue", func(t *testing.T) {
		unlock, err := f.eng.Lock(ctx, tab)
		require.NoError(t, err)
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = f.eng.Click(short, tab, actions.ClickArgs{Target: sel("#count")})
		assert.Equal(t, "timeout", codeOf(err), "%v", err)
		unlock()
		_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#count")})
		require.NoError(t, err)
		assert.Equal(t, "1", read[string](t, ctx, s, `document.getElementById('count').dataset.n`), "the timed-out click never ran")
	})
}

func TestE2EActionTwoTabsConcurrently(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	a := f.page(t, ctx, "slow.html")
	b := f.page(t, ctx, "slow.html")

	// Tab A waits for what only an action on tab B makes happen (a
	// storage event): it completes only if B runs while A waits.
	var aDone time.Time
	var aErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, aErr = f.eng.WaitFor(ctx, a.TabID(), actions.WaitArgs{Selector: "#pinged", Timeout: 20 * time.Second})
		aDone = time.Now()
	}()
	require.Eventually(t, func() bool { return f.eng.Queued(a.TabID()) == 1 }, 10*time.Second, time.Millisecond)
	_, err := f.eng.ExecuteJS(ctx, b.TabID(), actions.EvalArgs{Script: `localStorage.setItem('ping', 'from B')`})
	require.NoError(t, err)
	bDone := time.Now()
	<-done
	require.NoError(t, aErr)
	assert.True(t, bDone.Before(aDone), "tab B's action finished while tab A's wait was running")
	assert.Equal(t, "pinged from B", read[string](t, ctx, a, `document.getElementById('pinged').textContent`))
}

func TestE2EActionWaits(t *testing.T) {
	f := newActFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	api := slowAPI(t)
	s := f.page(t, ctx, "slow.html?api="+api.URL+"/slow?ms=700")
	tab := s.TabID()

	start := time.Now()
	r, err := f.eng.WaitFor(ctx, tab, actions.WaitArgs{Selector: "text=Appeared late"})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.True(t, read[bool](t, ctx, s, `!!document.getElementById('late')`))
	assert.Less(t, time.Since(start), 5*time.Second)
	_, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{Selector: "#spinner", State: "detached"})
	require.NoError(t, err)

	_, err = f.eng.Click(ctx, tab, actions.ClickArgs{Target: sel("#load")})
	require.NoError(t, err)
	r, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{Text: "slow data"})
	require.NoError(t, err, "text appears when the late fetch resolves")
	t.Log(r.Text())
	assert.Equal(t, "slow data", read[string](t, ctx, s, `document.getElementById('data').textContent`))

	_, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{Selector: "#never", Timeout: 300 * time.Millisecond})
	assert.Equal(t, actions.CodeWaitTimeout, codeOf(err))
	_, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{Selector: "#late", State: "hidden", Timeout: 200 * time.Millisecond})
	assert.Equal(t, actions.CodeWaitTimeout, codeOf(err))
	_, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{URL: "slow.html?api=*"})
	require.NoError(t, err)
	_, err = f.eng.WaitFor(ctx, tab, actions.WaitArgs{Text: "x", URL: "y"})
	assert.Equal(t, "invalid_argument", codeOf(err))

	_, err = f.eng.ExecuteJS(ctx, tab, actions.EvalArgs{Script: `let n = 0; const t = setInterval(() => { document.body.dataset.n = ++n; if (n === 8) clearInterval(t) }, 50); n`})
	require.NoError(t, err)
	r, err = f.eng.WaitForStable(ctx, tab, actions.StableArgs{QuietMS: 200})
	require.NoError(t, err)
	t.Log(r.Text())
	assert.Equal(t, "8", read[string](t, ctx, s, `document.body.dataset.n`), "stable only after the last mutation")
}
