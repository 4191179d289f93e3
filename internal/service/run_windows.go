package service

import (
	"context"
	"time"

	"github.com/kardianos/service"
)

func runPlatform(ctx context.Context, fn func(context.Context) error) error {
	if service.Interactive() {
		return fn(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &program{fn: fn, ctx: ctx, cancel: cancel, finished: make(chan struct{})}
	s, err := service.New(p, &service.Config{Name: windowsName})
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- s.Run() }()
	select {
	case err := <-errc: // the SCM asked us to stop; Stop waited for fn (bounded)
		select {
		case <-p.finished:
			if p.err != nil {
				return p.err
			}
		default:
		}
		return err
	case <-p.finished: // fn ended by itself: exit so the SCM's restart policy applies
		return p.err
	}
}

// program adapts fn to kardianos: Start launches it, Stop cancels it and
// waits (bounded) for it to return.
type program struct {
	fn       func(context.Context) error
	ctx      context.Context
	cancel   context.CancelFunc
	finished chan struct{}
	err      error // written before finished closes
}

func (p *program) Start(service.Service) error {
	go func() {
		defer close(p.finished)
		p.err = p.fn(p.ctx)
	}()
	return nil
}

func (p *program) Stop(service.Service) error {
	p.cancel()
	select {
	case <-p.finished:
	case <-time.After(15 * time.Second):
	}
	return nil
}
