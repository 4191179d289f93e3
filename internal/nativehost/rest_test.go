package nativehost

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gasoline-mcp/gasoline/internal/protocol"
)

func TestRestReleasesOnceAfterEachBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := newRest(2*time.Second, func() { n.Add(1) })
		defer r.stop()

		// Traffic every second: never two seconds of silence.
		for range 5 {
			time.Sleep(time.Second)
			r.touch()
		}
		synctest.Wait()
		require.Zero(t, n.Load(), "released during traffic")

		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 1, n.Load(), "two seconds after the last message")

		// Resting on: nothing more to release until traffic comes back.
		time.Sleep(time.Minute)
		synctest.Wait()
		require.EqualValues(t, 1, n.Load())

		r.touch()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 2, n.Load(), "after the next burst")
	})
}

func TestRestStopWaitsForARunningRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started, finish := make(chan struct{}), make(chan struct{})
		var done atomic.Bool
		r := newRest(time.Second, func() {
			close(started)
			<-finish
			done.Store(true)
		})
		time.Sleep(time.Second)
		<-started
		stopped := make(chan struct{})
		go func() {
			r.stop()
			close(stopped)
		}()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("stop returned while a release was running")
		default:
		}
		close(finish)
		<-stopped
		require.True(t, done.Load())

		// Stopped: touches release nothing.
		r.touch()
		time.Sleep(time.Hour)
		synctest.Wait()
	})
}

func TestRelayReleasesAtRestAndRelaysOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d := newFakeDaemon(t)
	released := make(chan struct{}, 8)
	ext, done := startRelayWith(t, ctx, Config{
		Ensure:    d.ensure,
		RestAfter: 10 * time.Millisecond,
		Release:   func() { released <- struct{}{} },
	})

	ext.send(protocol.Message{ID: 1, Method: "hello", Params: json.RawMessage(`{"protocol":1}`)})
	c := <-d.conns
	require.Equal(t, "hello", readWS(t, ctx, c).Method)
	writeWS(t, ctx, c, protocol.Message{ID: 1, Result: json.RawMessage(`{"protocol":1}`)})
	require.Equal(t, int64(1), ext.recv().ID)

	select {
	case <-released:
	case <-ctx.Done():
		t.Fatal("the relay never released at rest")
	}
	// At rest and released, it relays as before, both ways.
	ext.send(protocol.Message{ID: 2, Method: "ping"})
	require.Equal(t, int64(2), readWS(t, ctx, c).ID)
	writeWS(t, ctx, c, protocol.Message{ID: 2, Result: json.RawMessage(`{"pong":true}`)})
	require.JSONEq(t, `{"pong":true}`, string(ext.recv().Result))

	ext.in.Close()
	require.NoError(t, <-done)
}
