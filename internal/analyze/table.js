// analyze data_table: the page's data tables (HTML tables and ARIA
// table/grid roles, layout tables excluded) as headers and rows of cell
// text. Hidden tables, rows and text are dropped and counted.
(opts) => {
  const SEL = 'table, [role="table"], [role="grid"], [role="treegrid"]';
  const layout = (t) => ['presentation', 'none'].includes((t.getAttribute('role') || '').trim());
  let tables = [];
  if (opts.selector) {
    for (const el of within(opts.selector)) {
      const t = el.matches(SEL) ? el : el.querySelector(SEL);
      if (t && !tables.includes(t)) tables.push(t);
    }
    if (!tables.length) throw 'no_match';
  } else {
    tables = [...document.querySelectorAll(SEL)].filter((t) => !layout(t));
  }
  let hiddenTables = 0;
  const shown = tables.filter((t) => (visible(t) ? true : (hiddenTables++, false)));
  const aria = (t) => t.localName !== 'table';
  const rowsOf = (t) =>
    aria(t) ? [...t.querySelectorAll('[role="row"]')].filter((r) => r.closest(SEL) === t) : [...t.rows];
  const cellsOf = (r) =>
    r.localName === 'tr' && !r.getAttribute('role')
      ? [...r.cells]
      : [...r.querySelectorAll('[role="cell"], [role="gridcell"], [role="columnheader"], [role="rowheader"], td, th')].filter((c) => c.closest('[role="row"], tr') === r);
  const isHeader = (c) => c.localName === 'th' || c.getAttribute('role') === 'columnheader';
  const texts = (cells) => {
    const out = [];
    for (const c of cells) {
      out.push(textOf(c, opts.max_cell));
      for (let i = 1; i < (c.colSpan || 1); i++) out.push('');
    }
    return out;
  };
  const out = shown.slice(0, opts.max_tables).map((t) => {
    const rows = rowsOf(t);
    let headers = [];
    let body = rows;
    const first = rows.find((r) => visible(r));
    if (first && cellsOf(first).length && cellsOf(first).every(isHeader)) {
      headers = texts(cellsOf(first));
      body = rows.slice(rows.indexOf(first) + 1);
    }
    let hidden = 0;
    const data = [];
    let total = 0;
    for (const r of body) {
      if (!visible(r)) {
        hidden++;
        continue;
      }
      total++;
      if (data.length < opts.limit) data.push(texts(cellsOf(r)));
    }
    let caption = t.localName === 'table' && t.caption ? textOf(t.caption, 200) : '';
    if (!caption) caption = nameOf(t)[0];
    return { selector: cssPath(t), ref: refOf(t), caption, headers, rows: data, total_rows: total, hidden_rows: hidden };
  });
  return { url: location.href, tables: out, total_tables: shown.length, hidden_tables: hiddenTables };
}
