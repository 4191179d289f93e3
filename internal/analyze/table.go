package analyze

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/gasoline-mcp/gasoline/internal/mcpserver"
)

//go:embed table.js
var tableJS string

var tableFn = script(tableJS)

// TablesReport is analyze data_table's answer.
type TablesReport struct {
	TabID         int            `json:"tab_id"`
	URL           string         `json:"url"`
	Tables        []DataTable    `json:"tables"`
	TotalTables   int            `json:"total_tables"`
	HiddenTables  int            `json:"hidden_tables,omitempty"`
	HiddenDropped int            `json:"hidden_dropped,omitempty"`
	HiddenReasons map[string]int `json:"hidden_reasons,omitempty"` // HiddenDropped by reason (internal/visible)
}

// DataTable is one table: its header cells and the text of its rows.
type DataTable struct {
	Selector   string     `json:"selector"`
	Ref        refNum     `json:"ref,omitempty"`
	Caption    string     `json:"caption,omitempty"`
	Headers    []string   `json:"headers"`
	Rows       [][]string `json:"rows"`
	TotalRows  int        `json:"total_rows"`
	HiddenRows int        `json:"hidden_rows,omitempty"`
}

// maxTables bounds the tables one answer holds.
const maxTables = 10

func (a *Analyzer) dataTable(ctx context.Context, c *mcpserver.Call) (any, error) {
	ctx, cancel := c.Budget(ctx)
	defer cancel()
	p, err := a.open(ctx, c)
	if err != nil {
		return nil, err
	}
	defer p.release()
	var r TablesReport
	opts := map[string]any{"selector": c.Args.Selector, "limit": limitOf(c, 100, 1000), "max_tables": maxTables, "max_cell": 200}
	if err := p.call(ctx, tableFn(), opts, &r); err != nil {
		return nil, err
	}
	r.TabID = p.tab
	for i := range r.Tables {
		r.Tables[i].Ref = a.ref(p.tab, r.Tables[i].Ref)
	}
	return pageResult(tablesText(&r), r, r.page())
}

func tablesText(r *TablesReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tab %d: %d table(s)", r.TabID, r.TotalTables)
	if r.HiddenTables > 0 {
		fmt.Fprintf(&b, " (%d hidden, left out)", r.HiddenTables)
	}
	if len(r.Tables) == 0 {
		b.WriteString("; no data table on the page")
	}
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "\n\ntable %s%s", t.Selector, refSuffix(t.Ref))
		if t.Caption != "" {
			fmt.Fprintf(&b, " %q", t.Caption)
		}
		fmt.Fprintf(&b, ": %d row(s)", t.TotalRows)
		if t.HiddenRows > 0 {
			fmt.Fprintf(&b, " (%d hidden left out)", t.HiddenRows)
		}
		if len(t.Headers) > 0 {
			b.WriteString("\n" + row(t.Headers))
			b.WriteString("\n|" + strings.Repeat(" --- |", len(t.Headers)))
		}
		for _, r := range t.Rows {
			b.WriteString("\n" + row(r))
		}
		if len(t.Rows) < t.TotalRows {
			fmt.Fprintf(&b, "\n… %d more rows: pass a larger limit", t.TotalRows-len(t.Rows))
		}
	}
	if len(r.Tables) < r.TotalTables {
		fmt.Fprintf(&b, "\n… %d more tables: pass a selector", r.TotalTables-len(r.Tables))
	}
	return b.String()
}

// row renders cells as a Markdown table row.
func row(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return "| " + strings.Join(esc, " | ") + " |"
}
