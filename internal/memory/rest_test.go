package memory

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRestReleasesOnceAfterEachBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := NewRest(2*time.Second, func() { n.Add(1) })
		defer r.Stop()

		// Traffic every second: never two seconds of silence.
		for range 5 {
			time.Sleep(time.Second)
			r.Touch()
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

		r.Touch()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 2, n.Load(), "after the next burst")
	})
}

func TestRestStopWaitsForARunningRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started, finish := make(chan struct{}), make(chan struct{})
		var done atomic.Bool
		r := NewRest(time.Second, func() {
			close(started)
			<-finish
			done.Store(true)
		})
		time.Sleep(time.Second)
		<-started
		stopped := make(chan struct{})
		go func() {
			r.Stop()
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
		r.Touch()
		time.Sleep(time.Hour)
		synctest.Wait()
	})
}
