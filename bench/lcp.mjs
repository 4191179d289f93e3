#!/usr/bin/env node
// LCP side by side (issue 32): Gasoline's analyze performance_trace and
// chrome-devtools-mcp's performance trace insight on the same slow page
// (testdata/pages/devtools/slow.html, served by `go run ./tools/slowsite`
// with its server-side delays), the same Debian Chromium and flags, the
// same MCP client. Each traces a reload K times; the report gives every
// run, the medians, whether both name the same LCP element, and how far
// apart the medians are (the bar: within 10%). Writes
// bench/results/lcp-<date>-<sha>.md and prints it.
//
//   node bench/lcp.mjs [--k 3]
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { chromiumVersion } from './lib/chromium.mjs';
import * as gas from './lib/gasoline.mjs';
import { call, connect, text } from './lib/mcp.mjs';
import { devtools, gasoline } from './lib/servers.mjs';
import { browsers, reap } from './lib/procs.mjs';

const HERE = import.meta.dirname;
const REPO = path.resolve(HERE, '..');
const PAGE = '/pages/devtools/slow.html';
const { values: opt } = parseArgs({
  options: { k: { type: 'string', default: process.env.BENCH_K || '3' } },
});
const K = Number(opt.k);
const log = (...a) => console.error('[lcp]', ...a);
// VIEWPORT is what each browser's page measures: the servers' windows
// differ, and an image's share of the viewport decides LCP candidates.
const VIEWPORT = '`${innerWidth}×${innerHeight}`';

// site runs the fixture server and resolves to {origin, stop}.
function site() {
  const p = spawn('go', ['run', './tools/slowsite', 'testdata'], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((ok, fail) => {
    p.on('error', fail);
    readline
      .createInterface({ input: p.stdout })
      .once('line', (origin) =>
        ok({ origin: origin.trim(), stop: () => p.stdin.end() }),
      );
  });
}

function must(r, what) {
  if (r.result.isError) throw new Error(`${what}: ${text(r.result)}`);
  return r.result;
}

// gasolineRuns traces the page K times through Gasoline.
async function gasolineRuns(url, tmp) {
  const chain = await gas.start({ repo: REPO, tmp });
  const { client } = await connect({
    ...gasoline.spawn({ chain, tmp }),
    logPath: path.join(tmp, 'gasoline-mcp.log'),
  });
  const runs = [];
  try {
    must(await call(client, 'interact', { what: 'new_tab', url }), 'new_tab');
    const vp = must(
      await call(client, 'interact', { what: 'execute_js', script: VIEWPORT }),
      'execute_js',
    );
    runs.viewport = vp.structuredContent?.value;
    for (let i = 0; i < K; i++) {
      const r = must(
        await call(client, 'analyze', {
          what: 'performance_trace',
          timeout_ms: 120000,
        }),
        'performance_trace',
      );
      const l = r.structuredContent?.lcp;
      if (!l) throw new Error(`no LCP: ${text(r)}`);
      runs.push({ ms: l.ms, node: l.node_name, url: l.url ?? '' });
      log('gasoline', i + 1, l.ms, l.node_name);
    }
  } finally {
    await client.close();
    await chain.stop();
  }
  return runs;
}

// devtoolsRuns traces the page K times through chrome-devtools-mcp: its
// trace summary gives LCP, its LCPBreakdown insight names the element.
async function devtoolsRuns(url, tmp) {
  const { client } = await connect({
    ...devtools.spawn({ tmp }),
    logPath: path.join(tmp, 'devtools-mcp.log'),
  });
  const s = { call: (n, a) => call(client, n, a) };
  const runs = [];
  try {
    await devtools.setup(s);
    must(
      await s.call('navigate_page', { pageId: s.pageId, type: 'url', url }),
      'navigate_page',
    );
    const vp = text(
      must(
        await s.call('evaluate_script', {
          pageId: s.pageId,
          function: `() => (${VIEWPORT})`,
        }),
        'evaluate_script',
      ),
    );
    runs.viewport = /"([^"]+)"/.exec(vp)?.[1];
    for (let i = 0; i < K; i++) {
      const summary = text(
        must(
          await s.call('performance_start_trace', {
            pageId: s.pageId,
            reload: true,
            autoStop: true,
          }),
          'performance_start_trace',
        ),
      );
      const lcp = /- LCP: (\d+) ms/.exec(summary);
      const set = /insight set id: (\S+)/.exec(summary);
      if (!lcp || !set) throw new Error(`no LCP in:\n${summary}`);
      const insight = text(
        must(
          await s.call('performance_analyze_insight', {
            pageId: s.pageId,
            insightSetId: set[1],
            insightName: 'LCPBreakdown',
          }),
          'performance_analyze_insight',
        ),
      );
      const el = /The LCP element \((.+?), nodeId: \d+\)/.exec(insight);
      const img = /is an image fetched from (\S+)/.exec(insight);
      runs.push({
        ms: Number(lcp[1]),
        node: el ? el[1] : '?',
        url: img ? img[1].replace(/[`.]+$/g, '').replace(/^`/, '') : '',
      });
      log('devtools', i + 1, lcp[1], el?.[1]);
    }
  } finally {
    const left = browsers(); // chrome-devtools-mcp's browser
    await client.close();
    await reap(left);
  }
  return runs;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

function report(url, g, d) {
  const gm = median(g.map((r) => r.ms));
  const dm = median(d.map((r) => r.ms));
  const diff = Math.abs(gm - dm) / dm;
  const sameNode = g.every((r) => r.node === d[0].node);
  const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: REPO,
    encoding: 'utf8',
  }).trim();
  const row = (name, runs) =>
    `| ${name} | ${runs.viewport} | ${runs.map((r) => r.ms).join(', ')} | ${median(runs.map((r) => r.ms))} | \`${runs[0].node}\` | ${runs[0].url.replace(/^https?:\/\/[^/]+/, '')} |`;
  return [
    `# LCP side by side — ${new Date().toISOString().slice(0, 10)} at ${sha}`,
    '',
    `${chromiumVersion()}, headless, ${os.cpus().length} cores; page ${PAGE} (hero image held 600 ms by the server).`,
    `Each server traces a reload ${K} times (Gasoline: analyze performance_trace; chrome-devtools-mcp: performance_start_trace reload+autoStop, then performance_analyze_insight LCPBreakdown).`,
    '',
    '| server | viewport | LCP per run (ms) | median | LCP element | its image |',
    '| --- | --- | --- | --- | --- | --- |',
    row('Gasoline', g),
    row('chrome-devtools-mcp', d),
    '',
    `Same LCP element: **${sameNode ? 'yes' : 'NO'}**. Medians ${gm} ms vs ${dm} ms: **${(diff * 100).toFixed(1)}%** apart (bar: 10%) — ${diff <= 0.1 ? 'within' : 'OUTSIDE'}.`,
    '',
  ].join('\n');
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gasoline-lcp-'));
  const s = await site();
  const url = s.origin + PAGE;
  try {
    const g = await gasolineRuns(url, tmp);
    const d = await devtoolsRuns(url, tmp);
    const md = report(url, g, d);
    const out = path.join(
      HERE,
      'results',
      `lcp-${new Date().toISOString().slice(0, 10)}-${execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim()}.md`,
    );
    fs.writeFileSync(out, md);
    console.log(md);
    log('wrote', out);
  } finally {
    s.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
