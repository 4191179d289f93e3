package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkE2EReadPath times the two small reads of the side-by-side bench
// (bench/lib/ops.mjs) as an agent sees them: observe snapshot of the small
// form page and observe logs of a page that logged a few messages, through
// `gasoline-host --mcp` (the stdio relay, as the bench and every agent)
// and over streamable HTTP (the daemon alone). Each reports p50/p95 and
// the result's size as JSON (what every hop carries; READPATH_DUMP=dir
// writes each result there). Goal (issue 35): below chrome-devtools-mcp's
// 4.4 ms (snapshot) and 0.81 ms (console) in the side-by-side bench.
//
//	go test -run '^$' -bench E2EReadPath -benchtime 100x ./internal/e2e
func BenchmarkE2EReadPath(b *testing.B) {
	r := startRelay(b, ChainOptions{})
	http := r.client(b, "readpath-http")
	stdio := stdioBench(b, r.Chain, "readpath-stdio")
	form := r.url("pages/form.html")
	console := r.url("pages/relay/console.html")
	for _, c := range []struct {
		name string
		cl   *client
	}{{"stdio", stdio}, {"http", http}} {
		formTab := c.cl.newTab(form)
		logsTab := c.cl.newTab(console)
		c.cl.until("logs", map[string]any{"tab_id": logsTab}, 10*time.Second, func(a answer) bool { return strings.Contains(a.Text, "relay:console-done") })
		for _, op := range []struct {
			name, want string
			args       map[string]any
		}{
			{"snapshot_form", `button "Remove me"`, map[string]any{"what": "snapshot", "tab_id": formTab}},
			{"logs", "boom", map[string]any{"what": "logs", "tab_id": logsTab}},
		} {
			b.Run(c.name+"/"+op.name, func(b *testing.B) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				defer cancel()
				var res *mcp.CallToolResult
				call := func() (err error) {
					res, err = c.cl.cs.CallTool(ctx, &mcp.CallToolParams{Name: "observe", Arguments: op.args})
					return err
				}
				check := func() int { // outside the timing: what the client reads
					if res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, op.want) {
						b.Fatalf("%s: %q missing from %+v", op.name, op.want, res.Content[0])
					}
					raw, _ := json.Marshal(res)
					if dir := os.Getenv("READPATH_DUMP"); dir != "" { // to look at what every hop carries
						os.WriteFile(filepath.Join(dir, c.name+"-"+op.name+".json"), raw, 0o644)
					}
					return len(raw)
				}
				for range 5 { // warm-up: worlds, V8
					if err := call(); err != nil {
						b.Fatal(err)
					}
				}
				var lat latencies
				size := 0
				b.ResetTimer()
				for b.Loop() {
					if err := lat.time(call); err != nil {
						b.Fatal(err)
					}
					size = check()
				}
				b.StopTimer()
				lat.report(b)
				b.ReportMetric(float64(size), "result-bytes")
			})
		}
	}
}

// stdioBench connects an MCP client through `gasoline-host --mcp` to the
// chain's daemon.
func stdioBench(b *testing.B, c *Chain, name string) *client {
	cmd := exec.Command(hostBin, "--mcp")
	cmd.Env = append(os.Environ(), "GASOLINE_HOME="+c.Home, "GASOLINE_PORT="+strconv.Itoa(c.Port))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return &client{t: b, cs: cs}
}
