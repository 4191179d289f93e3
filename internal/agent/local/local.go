// Package local is the no-provider model adapter: no network at all. It
// triages the captured evidence of the tab deterministically — it calls
// the read-only observe modes errors and network_waterfall, then
// summarizes the errors and failed requests it got back.
package local

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/agent"
)

// Name is the local provider's default name.
const Name = "local"

// Adapter is the local triage adapter.
type Adapter struct{ name string }

// New returns the adapter; name "" is Name.
func New(name string) *Adapter {
	if name == "" {
		name = Name
	}
	return &Adapter{name: name}
}

// Name returns the provider name.
func (a *Adapter) Name() string { return a.name }

// Health is always nil: nothing to reach.
func (a *Adapter) Health(context.Context) error { return nil }

// The tool calls of a triage; ids are fixed so a conversation replays the
// same.
const (
	errorsCall  = "local_errors"
	networkCall = "local_network"
)

// Generate answers a new user message with the two read-only tool calls,
// and their results with the summary.
func (a *Adapter) Generate(_ context.Context, req agent.Request) (agent.Response, error) {
	results := map[string]agent.Message{}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == agent.User {
			break
		}
		if m.Role == agent.Tool {
			results[m.ToolCallID] = m
		}
	}
	if len(results) == 0 {
		return agent.Response{ToolCalls: triageCalls(req.TabID), Stop: "tool_use"}, nil
	}
	return agent.Response{Text: Summarize(results[errorsCall], results[networkCall]), Stop: "end_turn"}, nil
}

func triageCalls(tab int) []agent.ToolCall {
	args := func(extra string) json.RawMessage {
		s := `{"what":` + extra
		if tab > 0 {
			s += fmt.Sprintf(`,"tab_id":%d`, tab)
		}
		return json.RawMessage(s + "}")
	}
	return []agent.ToolCall{
		{ID: errorsCall, Name: "observe", Arguments: args(`"errors","limit":20`)},
		{ID: networkCall, Name: "observe", Arguments: args(`"network_waterfall","status":"failed","limit":50`)},
	}
}

// errorsAnswer and netAnswer are the parts of observe errors and
// network_waterfall the triage reads.
type errorsAnswer struct {
	Errors []errorGroup `json:"errors"`
}

type errorGroup struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Count   int    `json:"count"`
	URL     string `json:"url"`
	Line    int    `json:"line"`
}

type netAnswer struct {
	Requests []struct {
		Method    string `json:"method"`
		URL       string `json:"url"`
		Status    int    `json:"status"`
		Failed    bool   `json:"failed"`
		ErrorText string `json:"error_text"`
	} `json:"requests"`
}

// Summarize turns the two tool results into the triage text.
func Summarize(errs, net agent.Message) string {
	var b strings.Builder
	b.WriteString("Local triage (no model; nothing left this machine).\n")
	summarizeErrors(&b, errs)
	summarizeNetwork(&b, net)
	b.WriteString("Configure a model provider in agent.json for answers beyond triage.")
	return b.String()
}

func summarizeErrors(b *strings.Builder, m agent.Message) {
	switch {
	case m.ToolCallID == "":
		b.WriteString("Errors: not read.\n")
		return
	case m.IsError:
		fmt.Fprintf(b, "Errors: could not read them: %s\n", firstLine(m.Content))
		return
	}
	var ea errorsAnswer
	json.Unmarshal([]byte(m.Content), &ea)
	if len(ea.Errors) == 0 {
		b.WriteString("Errors: none captured.\n")
		return
	}
	slices.SortStableFunc(ea.Errors, func(x, y errorGroup) int { return y.Count - x.Count }) // most frequent first
	fmt.Fprintf(b, "Errors: %d distinct.\n", len(ea.Errors))
	for i, e := range ea.Errors {
		if i == 5 {
			fmt.Fprintf(b, "- … and %d more\n", len(ea.Errors)-5)
			break
		}
		where := ""
		if e.URL != "" {
			where = fmt.Sprintf(" at %s:%d", e.URL, e.Line)
		}
		fmt.Fprintf(b, "- %s ×%d%s\n", firstLine(e.Message), max(e.Count, 1), where)
	}
}

func summarizeNetwork(b *strings.Builder, m agent.Message) {
	switch {
	case m.ToolCallID == "":
		b.WriteString("Failed requests: not read.\n")
		return
	case m.IsError:
		fmt.Fprintf(b, "Failed requests: could not read them: %s\n", firstLine(m.Content))
		return
	}
	var na netAnswer
	json.Unmarshal([]byte(m.Content), &na)
	var failed []string
	for _, r := range na.Requests {
		if r.Failed || r.Status >= 400 {
			why := r.ErrorText
			if r.Status >= 400 {
				why = fmt.Sprintf("HTTP %d", r.Status)
			}
			failed = append(failed, fmt.Sprintf("- %s %s → %s", r.Method, r.URL, why))
		}
	}
	if len(failed) == 0 {
		b.WriteString("Failed requests: none captured.\n")
		return
	}
	fmt.Fprintf(b, "Failed requests: %d.\n", len(failed))
	for i, f := range failed {
		if i == 5 {
			fmt.Fprintf(b, "- … and %d more\n", len(failed)-5)
			break
		}
		b.WriteString(f + "\n")
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
