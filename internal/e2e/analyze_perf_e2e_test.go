package e2e

import (
	"context"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestE2EAnalyzePerformance: perf.html's planted long task (150 ms while
// loading) and its largest resource (big.js, 300,000 bytes), in the
// agent's background tab; in a hidden page Chrome reports no long tasks,
// and the answer says so.
func TestE2EAnalyzePerformance(t *testing.T) {
	x := startAnalyze(t, "analyze-perf", ChainOptions{})
	tab := x.page("/pages/analyze/perf.html")
	var r struct {
		URL        string
		Navigation struct {
			Type         string
			TTFB         float64 `json:"ttfb_ms"`
			Load         float64 `json:"load_ms"`
			TransferSize int64   `json:"transfer_size"`
		}
		LongTasks struct {
			Recorded, Hidden bool
			Count            int
			Longest          []float64
			Blocking         float64 `json:"blocking_ms"`
		} `json:"long_tasks"`
		Largest []struct {
			URL   string
			Bytes int64
			Type  string
		} `json:"largest_resources"`
		Metrics map[string]float64
		Notes   []string
	}
	a := x.analyze("performance", nil)
	decode(t, a.Data, &r)
	// The agent's tab is a background tab, emulated focused and visible
	// from when it opened (tabs.Open): the load's long task is measured
	// with nobody looking at it.
	assert.False(t, r.LongTasks.Hidden, "the agent's tab reads as visible")
	assert.True(t, r.LongTasks.Recorded)
	require.GreaterOrEqual(t, r.LongTasks.Count, 1, a.Text)
	assert.GreaterOrEqual(t, r.LongTasks.Longest[1], 150.0, "the planted task's duration: %v", r.LongTasks.Longest)
	assert.GreaterOrEqual(t, r.LongTasks.Blocking, 100.0)
	assert.Empty(t, r.Notes)
	require.NotEmpty(t, r.Largest)
	assert.Equal(t, x.site.URL+"/analyze/big.js", r.Largest[0].URL)
	assert.Equal(t, "Script", r.Largest[0].Type)
	assert.Greater(t, r.Largest[0].Bytes, int64(300_000), "the script's 300,000 bytes and its headers")
	assert.Equal(t, "navigate", r.Navigation.Type)
	assert.Greater(t, r.Navigation.Load, r.Navigation.TTFB)
	assert.Greater(t, r.Navigation.TTFB, 0.0)
	assert.Contains(t, r.Metrics, "JSHeapUsedSize")

	// A hidden page (a user's shared tab before the agent's first pointer
	// action): Chrome reports no long tasks, and the answer says so.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := cdproto.Call(ctx, x.Server.CDP(tab), emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: false})
	require.NoError(t, err)
	x.act("refresh", nil)
	a = x.analyze("performance", nil)
	r.LongTasks.Longest, r.Notes = nil, nil
	r.LongTasks.Count = 0
	decode(t, a.Data, &r)
	assert.True(t, r.LongTasks.Hidden, "a hidden page")
	assert.Zero(t, r.LongTasks.Count)
	assert.Contains(t, a.Text, "Chrome reports no long tasks and no paints for hidden pages")
}

// TestE2EAnalyzeErrorClusters: errors.html's planted causes come out as
// exactly these clusters, the most frequent first; the error that reports
// a failed request is linked to that request's cluster.
func TestE2EAnalyzeErrorClusters(t *testing.T) {
	x := startAnalyze(t, "analyze-clusters", ChainOptions{})
	x.page("/pages/analyze/errors.html")
	// The page's errors and requests reach the capture asynchronously:
	// wait for all of them (bounded).
	x.until("network_waterfall", map[string]any{"status": "4xx"}, 15*time.Second, func(a answer) bool { return len(list(a, "requests")) == 2 })
	x.until("errors", nil, 15*time.Second, func(a answer) bool {
		n := 0
		for _, e := range list(a, "errors") {
			n += int(e["count"].(float64))
		}
		return n == 8
	})
	a := x.analyze("error_clusters", nil)
	type cluster struct {
		Kind, Pattern, Location string
		Count, Distinct         int
		Related                 []string
	}
	var r struct {
		Clusters []cluster
		Errors   int
		Failed   int `json:"failed_requests"`
	}
	decode(t, a.Data, &r)
	page := x.site.URL + "/pages/analyze/errors.html"
	want := []cluster{
		{"error", "Failed to load user <n>", page + ":10:42", 3, 3, nil},
		{"network", "GET 404 /analyze/api/users/<n>", "", 2, 2, nil},
		{"error", "request failed: <n> /analyze/api/users/<n>", page + ":19:26", 2, 2, []string{"GET 404 /analyze/api/users/<n>"}},
		{"error", "Uncaught TypeError: Cannot read properties of null (reading <str>)", page + ":11:27", 1, 1, nil},
		{"error", "Uncaught TypeError: Cannot read properties of null (reading <str>)", page + ":13:10", 1, 1, nil},
		{"error", "Uncaught (in promise) Error: timeout after <n>ms", page + ":23:18", 1, 1, nil},
	}
	// Clusters of equal count keep the order they were first seen in,
	// which the browser's scheduling decides: compare as sets past rank 1.
	require.Len(t, r.Clusters, len(want), a.Text)
	assert.Equal(t, want[0], r.Clusters[0])
	assert.ElementsMatch(t, want[1:3], r.Clusters[1:3])
	assert.ElementsMatch(t, want[3:], r.Clusters[3:])
	assert.Equal(t, 8, r.Errors)
	assert.Equal(t, 2, r.Failed)

	a = x.analyze("error_clusters", map[string]any{"limit": 1})
	assert.Len(t, list(a, "clusters"), 1)
}

// TestE2EAnalyzePageIssues: issues.html's planted problems of every kind
// in one list, ranked by severity then count.
func TestE2EAnalyzePageIssues(t *testing.T) {
	x := startAnalyze(t, "analyze-issues", ChainOptions{})
	x.page("/pages/analyze/issues.html")
	x.until("network_waterfall", map[string]any{"status": "5xx"}, 15*time.Second, func(a answer) bool { return len(list(a, "requests")) == 3 })
	x.until("errors", nil, 15*time.Second, func(a answer) bool {
		n := 0
		for _, e := range list(a, "errors") {
			n += int(e["count"].(float64))
		}
		return n == 6
	})
	a := x.analyze("page_issues", nil)
	type issue struct {
		Rank               int
		Severity, Category string
		Title              string
		Count              int
	}
	var r struct {
		Issues []issue
		Total  int
	}
	decode(t, a.Data, &r)
	assert.Equal(t, []issue{
		{1, "high", "network", "GET 500 /analyze/api/fail", 3},
		{2, "high", "error", "Uncaught TypeError: Cannot read properties of null (reading <str>)", 2},
		{3, "high", "accessibility", "image-alt: Images must have alternative text", 1},
		{4, "medium", "error", "something odd <n>", 4},
		{5, "medium", "security", "no Content-Security-Policy, so injected scripts run unrestricted", 1},
		{6, "medium", "security", "no X-Frame-Options nor CSP frame-ancestors, so other sites can frame the page (clickjacking)", 1},
		{7, "low", "security", "no X-Content-Type-Options nosniff, so browsers may guess content types", 1},
	}, r.Issues, a.Text)
	assert.Equal(t, 7, r.Total)

	a = x.analyze("page_issues", map[string]any{"limit": 2})
	decode(t, a.Data, &r)
	assert.Len(t, r.Issues, 2)
	assert.Equal(t, 7, r.Total)
	assert.Contains(t, a.Text, "… 5 more: pass a larger limit")
}
