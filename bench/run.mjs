#!/usr/bin/env node
// End-to-end benchmark: Gasoline vs Playwright MCP vs chrome-devtools-mcp
// vs agent-browser through the official MCP client, on the same pages and
// the same Debian Chromium. Writes bench/results/<date>-<sha>.md and prints a summary.
// Never a pass/fail test: exit 0 unless the harness itself broke.
//
//   node bench/run.mjs [--n 30] [--warm 3] [--only gasoline,playwright,devtools,agentbrowser,rawcdp]
//                      [--ops screenshot,screenshot_plain]
//
// --ops runs only the listed ops (ids in lib/ops.mjs); the others' cells
// read "not run".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromiumVersion } from './lib/chromium.mjs';
import * as gas from './lib/gasoline.mjs';
import { memory, policyApproved, userRoundTrip } from './lib/gasoline-ops.mjs';
import { connect, listTools } from './lib/mcp.mjs';
import { OPS, repeat, runOp, session } from './lib/ops.mjs';
import { markdown } from './lib/report.mjs';
import { devtools, gasoline, playwright } from './lib/servers.mjs';
import { agentBrowser } from './lib/agentbrowser.mjs';
import { rawcdp } from './lib/rawcdp.mjs';
import { check, failed, na, ok } from './lib/stats.mjs';
import { serve } from './lib/static.mjs';
import { browsers, reap } from './lib/procs.mjs';

const HERE = import.meta.dirname;
const REPO = path.resolve(HERE, '..');
const SERVERS = [gasoline, playwright, devtools, agentBrowser, rawcdp];
// REST_MS: when the native host's RSS is read a second time, at rest.
const REST_MS = 3000;

const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: process.env.BENCH_N || '30' },
    warm: { type: 'string', default: process.env.BENCH_WARM || '3' },
    only: { type: 'string', default: SERVERS.map((s) => s.id).join(',') },
    ops: { type: 'string', default: OPS.map((o) => o.id).join(',') },
  },
});
const only = new Set(opt.only.split(','));
const ops = new Set(opt.ops.split(','));
for (const id of ops) {
  if (!OPS.some((o) => o.id === id)) {
    console.error(`--ops: no op ${id} (${OPS.map((o) => o.id).join(', ')})`);
    process.exit(2);
  }
}
// chosen runs op, or marks its cell "not run" when --ops leaves it out.
function chosen(op, server) {
  if (ops.has(op.id)) return true;
  row(op.id).cells[server.id] = na('not run (--ops)');
  return false;
}
const log = (...a) => console.error('[bench]', ...a);

const run = {
  servers: SERVERS.map(({ id, label }) => ({ id, label })),
  rows: [
    { id: 'init', label: 'spawn → initialize, warm', cells: {} },
    { id: 'tools_list', label: 'tools/list', cells: {} },
    ...OPS.map(({ id, label }) => ({ id, label, cells: {} })),
  ],
  extras: [],
  memory: [],
  notes: [],
};
const row = (id) => run.rows.find((r) => r.id === id);

// servedModes asks Gasoline what this build serves ("tool.mode").
async function servedModes(s) {
  const r = await s.call('configure', { what: 'describe_capabilities' });
  const d = r.result.structuredContent;
  check(d?.tools, 'describe_capabilities gave no tools');
  const out = new Set();
  for (const t of d.tools)
    for (const m of t.modes) if (m.available) out.add(`${t.tool}.${m.what}`);
  return out;
}

// benchDirect runs the ops a direct (non-MCP) server serves: the raw CDP
// floor.
async function benchDirect(server, ctx) {
  const d = await server.start(ctx.tmp);
  ctx.cleanup.push(() => d.stop());
  const s = session(server, d.client);
  const available = new Set(
    Object.values(server.tools).map((f) => f({}, 'x', 'x', 'x')[0]),
  );
  for (const r of run.rows) r.cells[server.id] = na('not an MCP server');
  for (const op of OPS) {
    if (!chosen(op, server)) continue;
    log(server.label, op.label);
    let res;
    try {
      res = await runOp(op, s, ctx, available);
    } catch (err) {
      res = failed(err.message);
    }
    row(op.id).cells[server.id] = res.status === 'na' ? na('–') : res;
  }
  log(server.label, 'screenshot, same work as Gasoline');
  try {
    run.sameWork = ok(
      await d.sameWork(`${ctx.origin}/pages/form.html`, ctx.n, ctx.warm),
    );
  } catch (err) {
    run.sameWork = failed(err.message);
  }
  ctx.browsers = browsers();
}

async function bench(server, ctx) {
  if (server.direct) return benchDirect(server, ctx);
  let chain;
  if (server === gasoline) {
    chain = await gas.start({ repo: REPO, tmp: ctx.tmp });
    ctx.cleanup.push(() => chain.stop());
  }
  // A peer whose daemon outlives its MCP server is closed at the end.
  if (server.teardown) ctx.cleanup.push(() => server.teardown(ctx.tmp));
  const spec = {
    ...server.spawn({ tmp: ctx.tmp, chain, configPath: ctx.playwrightConfig }),
    logPath: path.join(ctx.tmp, `${server.id}-stderr.log`),
  };
  const c = await connect(spec);
  ctx.cleanup.push(() => c.client.close());
  const s = session(server, c.client);
  run.servers.find((x) => x.id === server.id).version =
    c.client.getServerVersion()?.version;
  let names = [];
  row('tools_list').cells[server.id] = await repeat(
    ctx.n,
    ctx.warm,
    async () => {
      const tl = await listTools(c.client);
      names = tl.tools.map((t) => t.name);
      check(names.length > 0, 'no tools');
      return { ms: tl.ms, bytes: tl.bytes };
    },
  );
  const available = server === gasoline ? await servedModes(s) : new Set(names);
  if (server === gasoline) ctx.served = [...available].sort();
  if (server.setup) await server.setup(s);
  for (const op of OPS) {
    if (!chosen(op, server)) continue;
    log(server.label, op.label);
    try {
      row(op.id).cells[server.id] = await runOp(op, s, ctx, available);
    } catch (err) {
      row(op.id).cells[server.id] = failed(err.message);
    }
  }
  if (server === gasoline) {
    log(server.label, 'approvals');
    run.extras.push(
      {
        label: 'approval: policy-approved gated call',
        res: await policyApproved(s, ctx, available),
      },
      {
        label:
          'approval round trip, instant user (configure policy set, approved over /approvals)',
        res: await userRoundTrip(s, ctx, chain, available),
      },
    );
    const m = memory(chain, c.pid);
    // The host hands back what a burst left after 2 s without a message
    // (internal/nativehost/rest.go): it is read again once at rest.
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    const rested = memory(chain, c.pid);
    run.hostRSS = { after: m.host, rest: rested.host };
    run.memory.push(
      ['Gasoline daemon', m.daemon],
      [
        `Gasoline native host (${m.hostCount} process), just after the last call`,
        m.host,
      ],
      [
        `Gasoline native host, at rest (${REST_MS / 1000} s after the last call)`,
        rested.host,
      ],
      [
        `Gasoline stdio relay (${[path.basename(chain.stdio.command), ...chain.stdio.args].join(' ')})`,
        m.relay,
      ],
    );
  } else if (server.daemonPid) {
    run.memory.push(
      [`${server.label} MCP server`, gas.rssKiB(c.pid)],
      [`${server.label} daemon`, gas.rssKiB(server.daemonPid(ctx.tmp))],
    );
  } else {
    run.memory.push([`${server.label} server (node)`, gas.rssKiB(c.pid)]);
  }
  // Warm: the server's browser (and daemon) already running and done with
  // the ops, as for a client that starts while others work.
  log(server.label, 'spawn → initialize, warm');
  row('init').cells[server.id] = await repeat(ctx.n, ctx.warm, async () => {
    const x = await connect(spec);
    check(x.client.getServerVersion()?.name, 'no serverInfo');
    await x.client.close();
    return { ms: x.ms };
  });
  ctx.browsers = server.browsers ? server.browsers(ctx.tmp) : browsers();
  await c.client.close();
  if (chain) await chain.stop();
}

function env(ctx) {
  const sh = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { cwd: REPO, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const dirty = sh('git', ['status', '--porcelain']) ? '-dirty' : '';
  const pkg = (name) =>
    JSON.parse(
      fs.readFileSync(
        path.join(HERE, 'node_modules', name, 'package.json'),
        'utf8',
      ),
    ).version;
  const cpu = os.cpus();
  return {
    date: new Date().toISOString().slice(0, 10),
    sha: (sh('git', ['rev-parse', '--short', 'HEAD']) || 'nogit') + dirty,
    cpu: `${cpu[0]?.model.trim()} × ${cpu.length}`,
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    os: `${os.type()} ${os.release()}, Debian ${sh('cat', ['/etc/debian_version']) || '?'}`,
    chromium: chromiumVersion(),
    node: process.version,
    packages: [
      '@modelcontextprotocol/sdk',
      '@playwright/mcp',
      'playwright-core',
      'chrome-devtools-mcp',
      'agent-browser',
    ]
      .map((p) => `${p} ${pkg(p)}`)
      .join(', '),
    n: ctx.n,
    warm: ctx.warm,
  };
}

async function main() {
  const tmp = gas.tmpRoot();
  const srv = await serve({
    '/bench/': path.join(HERE, 'pages'),
    '/': path.join(REPO, 'testdata'),
  });
  const ctx = {
    tmp,
    origin: srv.origin,
    n: Number(opt.n),
    warm: Number(opt.warm),
    cleanup: [],
    playwrightConfig: path.join(tmp, 'playwright-config.json'),
  };
  fs.writeFileSync(ctx.playwrightConfig, JSON.stringify(playwright.config()));
  run.env = env(ctx);
  log(`pages on ${srv.origin}, scratch ${tmp}, N=${ctx.n} warm=${ctx.warm}`);
  for (const server of SERVERS) {
    if (!only.has(server.id)) continue;
    ctx.browsers = [];
    try {
      await bench(server, ctx);
    } catch (err) {
      log(server.label, 'broke:', err.stack);
      run.notes.push(`${server.label}: ${err.message}`);
      for (const r of run.rows)
        r.cells[server.id] ??= failed(`setup: ${err.message.split('\n')[0]}`);
    }
    for (const f of ctx.cleanup.splice(0).reverse()) await f().catch(() => {});
    const left = await reap(ctx.browsers);
    if (left.length)
      run.notes.push(
        `${server.label} left Chromium running (pids ${left.join(', ')}); sent SIGTERM.`,
      );
  }
  await srv.close();
  const g = run.servers.find((s) => s.id === 'gasoline');
  run.env.gasoline = `${g.version ?? '?'}`;
  run.env.served = ctx.served?.join(', ') ?? 'n/a';
  for (const server of SERVERS) {
    if (only.has(server.id))
      run.notes.push(...server.quirks().map((q) => `${server.label}: ${q}`));
  }
  const md = markdown(run);
  const out = path.join(HERE, 'results', `${run.env.date}-${run.env.sha}.md`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, md);
  console.log(md);
  console.log(`\nreport: ${path.relative(process.cwd(), out)}`);
  const broke = run.rows.some((r) =>
    Object.values(r.cells).some((c) => c.status === 'failed'),
  );
  if (broke) log(`some ops FAILED; logs kept in ${tmp}`);
  else fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
