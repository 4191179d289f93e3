package untrusted

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkScan: a large-page snapshot (~40 KB, the size of
// testdata/pages/large.html's) and a 1 MiB response body.
func BenchmarkScan(b *testing.B) {
	var lines []string
	for i := 0; len(strings.Join(lines, "\n")) < 40<<10; i++ {
		lines = append(lines, fmt.Sprintf(`  - row: #%d | link "Ada Lovelace" [ref=e%d] | Paid | $%d.00`, i, i, i%97),
			fmt.Sprintf(`- paragraph: Open the order, choose an action and confirm. Case %d is covered by the standard policy.`, i))
	}
	snap := strings.Join(lines, "\n")
	body, _ := json.Marshal(map[string]any{"body": strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 1<<20/57)})
	for _, c := range []struct {
		name string
		in   Input
	}{
		{"snapshot-40KB", Input{Text: snap, JSON: []byte(`{"tab_id":1,"nodes":3000}`)}},
		{"body-1MiB", Input{Text: string(body), JSON: body, TextIsJSON: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in.Text)))
			for b.Loop() {
				Scan(Rules{}, c.in)
			}
		})
	}
}

// BenchmarkFence: what fencing a large snapshot costs beside scanning it —
// cleaning, stripping the nonce and wrapping (with the check of every line
// against Gasoline's own).
func BenchmarkFence(b *testing.B) {
	var lines []string
	for i := 0; len(strings.Join(lines, "\n")) < 40<<10; i++ {
		lines = append(lines, fmt.Sprintf(`  - row: #%d | link "Ada Lovelace" [ref=e%d] | Paid | $%d.00`, i, i, i%97),
			fmt.Sprintf(`- paragraph: Open the order, choose an action and confirm. Case %d is covered by the standard policy.`, i))
	}
	snap := strings.Join(lines, "\n")
	f := NewFence(NewNonce())
	b.SetBytes(int64(len(snap)))
	for b.Loop() {
		f.Wrap(Clean(f.Strip(snap)), Report{}, 0)
	}
}
