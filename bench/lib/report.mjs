// The Markdown report and the stdout summary.

const ms = (v) => (v == null ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const kib = (b) =>
  b == null ? '–' : b < 1024 ? `${b} B` : `${(b / 1024).toFixed(1)} KiB`;
const tok = (b) =>
  b == null ? '' : ` (~${Math.round(b / 4).toLocaleString('en')} tok)`;
const esc = (s) => String(s).replaceAll('|', '\\|').replace(/\s+/g, ' ');

const mib = (k) => `${(k / 1024).toFixed(1)} MiB`;

function cell(r, what) {
  if (!r) return '–';
  if (r.status === 'na') return r.why === '–' ? '–' : `n/a (${esc(r.why)})`;
  if (r.status === 'failed') return `FAILED (${esc(r.why)})`;
  const note = r.note ? ` — ${esc(r.note)}` : '';
  if (what === 'bytes')
    return r.bytes == null ? '–' : kib(r.bytes) + tok(r.bytes);
  return `${ms(r.p50)} / ${ms(r.p95)}${note}`;
}

function ratio(a, b, field) {
  if (a?.status !== 'ok' || b?.status !== 'ok' || !a[field] || !b[field])
    return '–';
  return `${(a[field] / b[field]).toFixed(2)}×`;
}

function table(run, field) {
  const [g, ...peers] = run.servers;
  const head = [
    'op',
    ...run.servers.map((s) => s.label),
    ...peers.map((p) => `${g.label}/${p.label}`),
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => ' --- ').join('|')}|`,
  ];
  for (const row of run.rows) {
    if (
      field === 'bytes' &&
      !run.servers.some((s) => row.cells[s.id]?.bytes != null)
    )
      continue;
    const cells = run.servers.map((s) => cell(row.cells[s.id], field));
    const ratios = peers.map((p) =>
      ratio(
        row.cells[g.id],
        row.cells[p.id],
        field === 'bytes' ? 'bytes' : 'p50',
      ),
    );
    lines.push(`| ${row.label} | ${[...cells, ...ratios].join(' | ')} |`);
  }
  return lines.join('\n');
}

function goals(run) {
  const g = (id) => run.rows.find((r) => r.id === id)?.cells.gasoline;
  const items = [
    ['snapshot (large) p50', g('snapshot_large'), 'p50', 60, 'ms'],
    ['snapshot (large) size', g('snapshot_large'), 'bytes', 40 * 1024, 'B'],
    ['click p50', g('click'), 'p50', 20, 'ms'],
    ['evaluate p50', g('evaluate'), 'p50', 3, 'ms'],
    ['initialize p95 (spawn → initialized)', g('init'), 'p95', 30, 'ms'],
    ['tools/list size', g('tools_list'), 'bytes', 12 * 1024, 'B'],
  ];
  const rows = items.map(([name, r, f, goal, unit]) => {
    const v = r?.status === 'ok' ? r[f] : null;
    const shown =
      v == null
        ? r?.status === 'failed'
          ? 'FAILED'
          : 'n/a'
        : unit === 'B'
          ? kib(v)
          : `${ms(v)} ms`;
    const goalShown = unit === 'B' ? kib(goal) : `${goal} ms`;
    return { name, shown, goalShown, x: v == null ? null : v / goal };
  });
  const lines = [
    '| goal | Gasoline | target | × target |',
    '| --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${r.shown} | ≤ ${r.goalShown} | ${r.x == null ? '–' : `${r.x.toFixed(2)}×`} |`,
    );
  }
  const far = rows
    .filter((r) => r.x != null)
    .sort((a, b) => b.x - a.x)
    .slice(0, 3)
    .map((r) => `${r.name} (${r.x.toFixed(2)}× target)`);
  const unmeasured = rows.filter((r) => r.x == null).map((r) => r.name);
  lines.push(
    '',
    `Furthest from goal (measured): ${far.join('; ') || 'none measured'}.`,
  );
  if (unmeasured.length)
    lines.push(`Not measurable in this build: ${unmeasured.join('; ')}.`);
  return lines.join('\n');
}

// issue19 is the table issue 19 must hold in one run, side by side.
function issue19(run) {
  const c = (id, server) => run.rows.find((r) => r.id === id)?.cells[server];
  const v = (r, f) => (r?.status === 'ok' ? r[f] : null);
  const msOf = (r) => (v(r, 'p50') == null ? shown(r) : `${ms(r.p50)} ms`);
  const bOf = (r, f) => (v(r, f) == null ? shown(r) : kib(r[f]));
  const shot = ['gasoline', 'playwright', 'rawcdp'].map((s) =>
    c('screenshot', s),
  );
  const snap = ['gasoline', 'playwright'].map((s) => c('snapshot_large', s));
  const type = ['gasoline', 'playwright'].map((s) => c('type', s));
  const find = ['gasoline', 'playwright'].map((s) => c('find', s));
  const diff = c('diff', 'gasoline');
  const [gs, ps, rs] = shot.map((r) => v(r, 'p50'));
  const shotCap = rs != null && ps != null ? Math.min(1.25 * rs, ps) : null;
  const [gt, pt] = snap.map((r) => v(r, 'text'));
  const [gy, py] = type.map((r) => v(r, 'p50'));
  const gf = v(find[0], 'bytes');
  const gd = v(diff, 'bytes');
  const rss = run.hostRSS;
  const met = (x) => (x == null ? '–' : x ? 'yes' : '**no**');
  const rows = [
    [
      'screenshot, viewport PNG (p50)',
      msOf(shot[0]),
      msOf(shot[1]),
      msOf(shot[2]),
      `≤ 1.25× raw CDP and ≤ Playwright MCP (${shotCap == null ? '–' : `${ms(shotCap)} ms`})`,
      met(gs == null || shotCap == null ? null : gs <= shotCap),
    ],
    [
      'snapshot text, large page (~3,000 el.)',
      bOf(snap[0], 'text'),
      bOf(snap[1], 'text'),
      '–',
      `≤ 1/3 of Playwright's (${pt == null ? '–' : kib(Math.floor(pt / 3))})`,
      met(gt == null || pt == null ? null : gt <= pt / 3),
    ],
    [
      'type into an input (p50)',
      msOf(type[0]),
      msOf(type[1]),
      '–',
      `≤ 0.5× Playwright's (${py == null ? '–' : `${ms(py / 2)} ms`})`,
      met(gy == null || py == null ? null : gy <= py / 2),
    ],
    [
      'native host RSS at rest (just after the last call)',
      rss?.rest == null
        ? 'n/a'
        : `${mib(rss.rest)} (${rss.after == null ? 'n/a' : mib(rss.after)})`,
      '–',
      '–',
      '≤ 10 MiB',
      met(rss?.rest == null ? null : rss.rest <= 10 * 1024),
    ],
    [
      'find "Tool 40" answer, ref clicked',
      bOf(find[0], 'bytes'),
      bOf(find[1], 'bytes'),
      '–',
      '≤ 2 KiB with a usable ref',
      met(gf == null ? null : gf <= 2048),
    ],
    [
      'diff after a click, answer',
      bOf(diff, 'bytes'),
      'n/a (no diff)',
      '–',
      '≤ 2 KiB',
      met(gd == null ? null : gd <= 2048),
    ],
  ];
  const lines = [
    '| goal | Gasoline | Playwright MCP | raw CDP | target | met |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
  const same = run.sameWork;
  if (same) {
    const v =
      same.status === 'ok'
        ? `${ms(same.p50)} / ${ms(same.p95)} ms`
        : cell(same);
    const x =
      same.status === 'ok' && gs != null
        ? ` (Gasoline ÷ it: ${(gs / same.p50).toFixed(2)}×)`
        : '';
    lines.push(
      '',
      `Raw CDP doing the screenshot's work as Gasoline must — a background tab held painting by a ` +
        `screencast, the mask over sensitive fields installed before the capture and checked and ` +
        `removed after — p50 / p95: ${v}${x}. The raw CDP column captures an unchanged visible tab.`,
    );
  }
  return lines.join('\n');
}

// ISSUE35 lists the rows of issue 35's table: op id, field, label, and the
// issue's own target for Gasoline (ms, or bytes for the snapshot text).
const ISSUE35 = [
  ['init', 'p50', 'spawn → initialize, warm', 6],
  ['snapshot_form', 'p50', 'snapshot, small form page', 4],
  ['console', 'p50', 'console messages', 1.2],
  ['network', 'p50', 'network list', 1.2],
  [
    'screenshot',
    'p50',
    'screenshot, viewport PNG (form: a password field, masked)',
    null,
  ],
  ['screenshot_plain', 'p50', 'screenshot, a page with nothing to mask', null],
  ['snapshot_large', 'text', 'snapshot text, ~3,000-element page', null],
  ['snapshot_large', 'p50', 'snapshot time, same page', 60],
  ['click', 'p50', 'click by ref', 10],
  ['type', 'p50', 'type', null],
  ['evaluate', 'p50', 'evaluate `1+1`', 2],
];

// issue35 is issue 35's table from this run: every MCP peer beside
// Gasoline, the best peer, and whether Gasoline is at or ahead of it (raw
// CDP is a floor, not a peer).
function issue35(run) {
  const order = ['rawcdp', 'playwright', 'devtools', 'agentbrowser'];
  const cols = order
    .map((id) => run.servers.find((s) => s.id === id))
    .filter(Boolean);
  const peers = cols.filter((s) => s.id !== 'rawcdp');
  const head = [
    'op',
    ...cols.map((s) => s.label),
    'Gasoline',
    'best peer',
    'Gasoline ≤ best peer',
    'issue target',
  ];
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => ' --- ').join('|')}|`,
  ];
  for (const [id, f, label, target] of ISSUE35) {
    const row = run.rows.find((r) => r.id === id);
    const v = (sid) => {
      const r = row?.cells[sid];
      return r?.status === 'ok' && r[f] != null ? r[f] : null;
    };
    const fmt = (sid) => {
      const x = v(sid);
      if (x == null) return shown(row?.cells[sid]);
      return f === 'text' ? kib(x) : ms(x);
    };
    const best = peers
      .filter((p) => v(p.id) != null)
      .sort((a, b) => v(a.id) - v(b.id))[0];
    const g = v('gasoline');
    const met =
      best == null || g == null ? '–' : g <= v(best.id) ? 'yes' : '**no**';
    const tgt =
      target == null
        ? f === 'text'
          ? '≤ agent-browser'
          : '≤ every peer'
        : `≤ ${target} ms${g == null ? '' : g <= target ? ' (met)' : ' (**not met**)'}`;
    lines.push(
      `| ${[
        label,
        ...cols.map((s) => fmt(s.id)),
        fmt('gasoline'),
        best ? `${best.label} ${fmt(best.id)}` : '–',
        met,
        tgt,
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

const shown = (r) =>
  r?.status === 'failed' ? 'FAILED' : r?.status === 'na' ? 'n/a' : '–';

function extras(run) {
  const lines = [
    '| measurement | p50 / p95 ms | note |',
    '| --- | --- | --- |',
  ];
  for (const x of run.extras) {
    const r = x.res;
    const v = r.status === 'ok' ? `${ms(r.p50)} / ${ms(r.p95)}` : cell(r);
    lines.push(
      `| ${x.label} | ${v} | ${r.status === 'ok' ? esc(r.note ?? '') : ''} |`,
    );
  }
  return lines.join('\n');
}

function memory(run) {
  const lines = ['| process | VmRSS |', '| --- | --- |'];
  for (const [name, k] of run.memory) {
    lines.push(`| ${name} | ${k == null ? 'n/a' : mib(k)} |`);
  }
  return lines.join('\n');
}

export function markdown(run) {
  const e = run.env;
  return `# End-to-end MCP benchmark — ${e.date} (${e.sha})

Gasoline (\`gasoline-mcp\`, what \`gasoline-host mcp-config\` prints; extension in headless Chromium) side by side with
Playwright MCP, chrome-devtools-mcp and agent-browser on the same pages and the same browser binary, through the
official MCP client over stdio. N = ${e.n} per op after ${e.warm} warm-up calls; every call is
verified (see bench/README.md). Cells are p50 / p95 in ms; ratios are Gasoline p50 ÷ peer p50
(< 1 means Gasoline is faster or smaller).

| | |
| --- | --- |
| CPU | ${e.cpu} |
| load average at start | ${e.load} |
| OS | ${e.os} |
| Chromium | ${e.chromium} |
| Node | ${e.node} |
| packages | ${e.packages} |
| Gasoline | ${e.gasoline} (served modes: ${e.served}) |

## Latency

${table(run, 'ms')}

## Response size (median bytes of the tools/call or tools/list result as JSON; ~tokens = bytes/4)

${table(run, 'bytes')}

## Gasoline only

${extras(run)}

## Memory (after all ops; browsers not counted)

${memory(run)}

## Issue 35: every row beside the best peer

p50 in ms (the snapshot text: its text content's size), from the tables above.

${issue35(run)}

## Goals (issue 19)

Sizes are the answer as the client receives it (the tool result's JSON), except the snapshot row:
its text content. The find and diff rows each click the ref they name (untimed) and check the page
reacted.

${issue19(run)}

## Goals (issue 9)

${goals(run)}
${run.notes.length ? `\n## Notes\n\n${run.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
}
