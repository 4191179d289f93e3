package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Clock is the adapters' time source for retry backoff. Tests inject a
// fake one or run inside a synctest bubble.
type Clock interface {
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Retry bounds the attempts of one Generate. Zero fields take defaults.
type Retry struct {
	Attempts int           // in all, the first included; default 3
	Base     time.Duration // first backoff; default 500ms, doubling
	Max      time.Duration // longest single wait (Retry-After included); default 20s
}

func (r Retry) filled() Retry {
	if r.Attempts <= 0 {
		r.Attempts = 3
	}
	if r.Base <= 0 {
		r.Base = 500 * time.Millisecond
	}
	if r.Max <= 0 {
		r.Max = 20 * time.Second
	}
	return r
}

// HTTP posts JSON to a provider: the body passes the egress redactor last,
// and 429, 5xx and transport failures are retried with bounded backoff.
// A Generate is idempotent (no tool runs inside it), so retrying it is
// safe. Client, Clock and Retry are optional.
type HTTP struct {
	Client   *http.Client
	Redactor Redactor
	Clock    Clock
	Retry    Retry
	// MaxResponseBytes caps a provider's answer; default 8 MiB.
	MaxResponseBytes int64
	// Sent, when set, sees every request body exactly as sent (tests).
	Sent func(body []byte)
}

// Post sends body (marshalled, then redacted) to url with header and
// decodes a 2xx answer into out.
func (h *HTTP) Post(ctx context.Context, provider, url string, header http.Header, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encoding the request: %w", provider, err)
	}
	if h.Redactor == nil {
		return ErrNoRedactor
	}
	raw, _, err = h.Redactor.JSON(raw)
	if err != nil {
		return &ProviderError{Provider: provider, Reason: "the request was blocked by redaction (" + err.Error() + "); nothing was sent"}
	}
	return h.do(ctx, provider, http.MethodPost, url, header, raw, out)
}

// Get sends a GET (health checks) with the same retry rules.
func (h *HTTP) Get(ctx context.Context, provider, url string, header http.Header, out any) error {
	return h.do(ctx, provider, http.MethodGet, url, header, nil, out)
}

func (h *HTTP) do(ctx context.Context, provider, method, url string, header http.Header, raw []byte, out any) error {
	r := h.Retry.filled()
	clock := h.Clock
	if clock == nil {
		clock = realClock{}
	}
	var last error
	for attempt := 0; attempt < r.Attempts; attempt++ {
		if attempt > 0 {
			wait := min(r.Base<<(attempt-1), r.Max)
			var pe *ProviderError
			if errors.As(last, &pe) && pe.retryAfter > 0 {
				wait = min(pe.retryAfter, r.Max)
			}
			select {
			case <-clock.After(wait):
			case <-ctx.Done():
				return fmt.Errorf("%s: %w (after %d attempts; last: %v)", provider, ctx.Err(), attempt, last)
			}
		}
		last = h.once(ctx, provider, method, url, header, raw, out)
		var pe *ProviderError
		if last == nil || !errors.As(last, &pe) || !pe.Retryable || ctx.Err() != nil {
			return last
		}
	}
	return last
}

func (h *HTTP) once(ctx context.Context, provider, method, url string, header http.Header, raw []byte, out any) error {
	var body io.Reader
	if raw != nil {
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return &ProviderError{Provider: provider, Reason: "bad provider URL in agent.json: fix base_url"}
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
		if h.Sent != nil {
			h.Sent(raw)
		}
	}
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &ProviderError{Provider: provider, Retryable: true, Reason: "cannot reach the provider (" + transportReason(err) + "); check base_url and the network"}
	}
	defer resp.Body.Close()
	limit := h.MaxResponseBytes
	if limit <= 0 {
		limit = 8 << 20
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return &ProviderError{Provider: provider, Retryable: true, Status: resp.StatusCode, Reason: "the answer was cut off"}
	}
	if int64(len(data)) > limit {
		return &ProviderError{Provider: provider, Status: resp.StatusCode, Reason: "the answer is larger than the daemon accepts"}
	}
	if resp.StatusCode/100 != 2 {
		pe := &ProviderError{Provider: provider, Status: resp.StatusCode, Reason: h.errorReason(data)}
		pe.Retryable = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		pe.retryAfter = retryAfter(resp.Header.Get("Retry-After"))
		return pe
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &ProviderError{Provider: provider, Status: resp.StatusCode, Reason: "the answer is not the JSON this adapter expects; check the provider type in agent.json"}
	}
	return nil
}

// errorReason extracts the provider's error message (OpenAI and Anthropic
// both use error.message), redacted and shortened: it is shown in the
// panel.
func (h *HTTP) errorReason(data []byte) string {
	msg := gjson.GetBytes(data, "error.message").String()
	if msg == "" {
		msg = gjson.GetBytes(data, "error").String()
	}
	if msg == "" || !gjson.ValidBytes(data) {
		return "the provider refused the request"
	}
	if h.Redactor == nil {
		return "the provider refused the request"
	}
	out, _, err := h.Redactor.Text(msg)
	if err != nil {
		return "the provider refused the request"
	}
	if len(out) > 300 {
		out = out[:300] + "…"
	}
	return out
}

func transportReason(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		s = s[i+2:]
	}
	return s
}

func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}
