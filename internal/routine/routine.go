// Package routine gives goroutines an owner. A Group starts goroutines
// until its context ends and waits for them: the owner of a long-lived
// component (a manager, a feed, a server) makes one Group with the context
// it runs under, starts its background work with Go, and its Wait returns
// once that work is done.
package routine

import (
	"context"
	"sync"
)

// Group runs goroutines that stop with its context. Make one with
// NewGroup; its methods are safe for concurrent use.
type Group struct {
	ctx context.Context

	mu   sync.Mutex
	n    int           // goroutines running
	idle chan struct{} // closed while n == 0
}

// NewGroup returns a Group whose goroutines get ctx. Once ctx has ended the
// Group starts no more goroutines.
func NewGroup(ctx context.Context) *Group {
	idle := make(chan struct{})
	close(idle)
	return &Group{ctx: ctx, idle: idle}
}

// Go runs f on a new goroutine with the Group's context, unless that
// context has ended. It reports whether f was started.
func (g *Group) Go(f func(ctx context.Context)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctx.Err() != nil {
		return false
	}
	if g.n == 0 {
		g.idle = make(chan struct{})
	}
	g.n++
	go func() {
		defer g.done()
		f(g.ctx)
	}()
	return true
}

func (g *Group) done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 {
		close(g.idle)
	}
}

// Wait returns as soon as none of the Group's goroutines is running. Once
// the context has ended that is for good, since Go starts no more.
func (g *Group) Wait() {
	g.mu.Lock()
	idle := g.idle
	g.mu.Unlock()
	<-idle
}
