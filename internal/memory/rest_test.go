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
		r := NewRest(2*time.Second, 0, func() { n.Add(1) })
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
		r := NewRest(time.Second, 0, func() {
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

func TestRestReleasesUnderEndlessTraffic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var n atomic.Int32
		r := NewRest(2*time.Second, time.Minute, func() { n.Add(1) })
		defer r.Stop()

		// Traffic every second for five minutes: never at rest, and one
		// release a minute all the same.
		for range 300 {
			time.Sleep(time.Second)
			r.Touch()
			synctest.Wait()
		}
		require.EqualValues(t, 5, n.Load())

		// The release at rest follows the last touch as before, and it
		// restarts the minute.
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.EqualValues(t, 6, n.Load())
		for range 59 {
			time.Sleep(time.Second)
			r.Touch()
			synctest.Wait()
		}
		require.EqualValues(t, 6, n.Load(), "a minute is counted from the last release, at rest or not")
		time.Sleep(time.Second)
		r.Touch()
		synctest.Wait()
		require.EqualValues(t, 7, n.Load())
	})
}
