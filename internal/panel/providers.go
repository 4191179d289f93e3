package panel

import (
	"context"
	"sync"
	"time"
)

type providerStatus struct {
	Name    string `json:"name"`
	Healthy bool   `json:"healthy"`
	Error   string `json:"error,omitempty"`
}

// panelProviders checks every provider at once, bounded.
func (p *Panel) panelProviders(ctx context.Context) map[string]any {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out := make([]providerStatus, len(p.order))
	var wg sync.WaitGroup
	for i, name := range p.order {
		out[i].Name = name
		wg.Go(func() {
			if err := p.adapters[name].Health(ctx); err != nil {
				out[i].Error = p.safeError(err)
				return
			}
			out[i].Healthy = true
		})
	}
	wg.Wait()
	res := map[string]any{"providers": out, "default": p.aiCfg.Default}
	if p.cfgErr != nil {
		res["config_error"] = p.safeError(p.cfgErr)
	}
	return res
}

// safeError is an error's text, egress-redacted, for the panel.
func (p *Panel) safeError(err error) string {
	r := p.redactor()
	out, _, rerr := r.Text(err.Error())
	if rerr != nil {
		return "the error text was blocked by redaction"
	}
	return out
}
