#!/usr/bin/env node
// Real app, side by side (issue 28): a scripted agent does four everyday
// tasks in Debian's classic Jupyter Notebook through each server's own
// tools — make a notebook and run a cell, rename it, create and save a
// text file, read the version from Help ▸ About — and the run counts, per
// task, the tool calls, the KiB of text the calls returned, and the
// approval prompts the user saw (Gasoline under its default policy: the
// harness plays an instant user who approves each prompt), and the
// changes (gated calls) they were about. Gasoline runs twice: as an agent
// that asks for each change, and as one that first proposes a plan for the
// notebook server (issue 30), which the user approves once. Each server
// gets a fresh notebook server; every task is checked through Jupyter's
// REST API, never through the server under test. Never a pass/fail test:
// exit 0 unless the harness broke. Writes bench/results/realapp-<date>-<sha>.md.
//
//   node bench/realapp.mjs [--only gasoline,gasoline-plan,playwright]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as gas from './lib/gasoline.mjs';
import * as jupyter from './lib/jupyter.mjs';
import { approver, drivers, refOf } from './lib/realapp-agents.mjs';
import { connect } from './lib/mcp.mjs';
import { browsers, reap } from './lib/procs.mjs';
import { playwright } from './lib/servers.mjs';

const HERE = import.meta.dirname;
const REPO = path.resolve(HERE, '..');
const { values: opt } = parseArgs({
  options: {
    only: { type: 'string', default: 'gasoline,gasoline-plan,playwright' },
  },
});
const log = (...a) => console.error('[realapp]', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// until polls Jupyter's API (an outside process that sends no signal).
async function until(what, fn, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await fn()) return;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`not done: ${what}`);
    await sleep(100);
  }
}

const cellOf = async (j, name) => {
  const f = await j.api(`/api/contents/${encodeURIComponent(name)}?content=1`);
  const c = f.content.cells[0];
  const src = Array.isArray(c.source) ? c.source.join('') : c.source;
  return { src, out: JSON.stringify(c.outputs ?? []) };
};

const CODE = 'x = 6 * 7\nprint(x)';
const TEXT = 'hello from the agent\nsecond line';

// The four tasks. a is the agent (realapp-agents.mjs): it calls its
// server's tools and remembers the last page text it read.
const TASKS = [
  {
    id: 'notebook',
    label: 'make a notebook and run a cell',
    async run(a, j) {
      a.tree = await a.open(j.url('/tree'));
      await a.look();
      await a.click('button', 'New');
      await a.look();
      a.nb = await a.clickOpens('menuitem', 'Python 3');
      await a.look();
      await a.type('textbox', '', CODE);
      for (let i = 0; ; i++) {
        await a.click('button', 'Run');
        if (await a.waitText('42')) break;
        if (i === 1) throw new Error('the cell never ran');
      }
      await a.save();
      const list = await j.api('/api/contents/');
      a.nbName = list.content.find((c) => c.type === 'notebook')?.path;
      await until('the notebook saved with its output', async () => {
        const c = await cellOf(j, a.nbName);
        return c.src === CODE && c.out.includes('42');
      });
    },
  },
  {
    id: 'rename',
    label: 'rename it',
    async run(a, j) {
      await a.click('link', 'File', a.nb);
      await a.look();
      await a.click('menuitem', 'Rename');
      await a.typeNew('textbox', '', 'Answers', 'dialog'); // the dialog's field, once it shows
      await a.click('button', 'Rename');
      await until('Answers.ipynb listed', () =>
        j.api('/api/contents/Answers.ipynb').then(() => true),
      );
    },
  },
  {
    id: 'textfile',
    label: 'create and save a text file',
    async run(a, j) {
      await a.click('button', 'New', a.tree);
      await a.look();
      await a.clickOpens('menuitem', 'Text File');
      await a.look();
      await a.type('textbox', '', TEXT);
      await a.press('Control+s');
      await until('untitled.txt saved', async () => {
        const f = await j.api('/api/contents/untitled.txt?content=1');
        return f.content.trim() === TEXT;
      });
    },
  },
  {
    id: 'about',
    label: 'read the version from Help ▸ About',
    async run(a, j) {
      const { version } = await j.api('/api');
      await a.click('link', 'Help', a.nb);
      await a.look();
      await a.click('link', 'About');
      let seen = '';
      for (let i = 0; i < 3 && !seen.includes(version); i++) {
        seen = await a.look(); // a dialog that fades in may need another look
      }
      if (!seen.includes(version))
        throw new Error(`the About dialog's version (${version}) never showed`);
      await a.click('button', 'OK');
    },
  },
];

async function runServer(id, tmp) {
  const j = await jupyter.start(tmp);
  const cleanup = [() => j.stop()];
  const out = { id, tasks: {} };
  try {
    let chain;
    let spec;
    let users;
    if (id.startsWith('gasoline')) {
      chain = await gas.start({ repo: REPO, tmp, policy: null }); // the default policy
      cleanup.push(() => chain.stop());
      users = approver(chain);
      cleanup.push(() => users.stop());
      spec = {
        command: chain.stdio.command, // what mcp-config prints: gasoline-mcp
        args: chain.stdio.args,
        env: { ...chain.env, ...chain.stdio.env },
        cwd: tmp,
      };
    } else {
      const cfg = path.join(tmp, 'playwright-config.json');
      fs.writeFileSync(cfg, JSON.stringify(playwright.config()));
      spec = playwright.spawn({ tmp, configPath: cfg });
    }
    spec.logPath = path.join(tmp, `${id}-realapp-stderr.log`);
    const c = await connect(spec);
    cleanup.push(() => c.client.close());
    out.version = c.client.getServerVersion()?.version;
    const a = drivers[id.split('-')[0]](c.client, refOf);
    for (const [i, t] of TASKS.entries()) {
      log(id, t.label);
      const before = {
        calls: a.calls,
        bytes: a.bytes,
        prompts: users?.count(),
        changes: await users?.changes(),
      };
      let status = 'done';
      try {
        if (id === 'gasoline-plan' && i === 0) {
          // The plan, before the first task: its one prompt counts there.
          await a.plan(
            'Make a notebook and run a cell, rename it, save a text file, read the version',
            [j.base],
            ['navigate', 'click', 'type', 'key_press'],
          );
        }
        await t.run(a, j);
      } catch (err) {
        status = `FAILED: ${err.message}`;
        log(id, t.id, status, a.last.slice(0, 400));
        await a.press('Escape').catch(() => {}); // leave no dialog open for the next task (not counted)
        a.calls--;
      }
      out.tasks[t.id] = {
        status,
        calls: a.calls - before.calls,
        bytes: a.bytes - before.bytes,
        prompts: users ? users.count() - before.prompts : null,
        changes: users ? (await users.changes()) - before.changes : null,
      };
    }
    out.offering = users?.offering();
  } finally {
    const open = browsers();
    for (const f of cleanup.reverse()) await f().catch(() => {});
    await reap(open);
  }
  return out;
}

const LABELS = {
  gasoline: 'Gasoline',
  'gasoline-plan': 'Gasoline, with a plan',
  playwright: 'Playwright MCP',
};

function table(runs) {
  const kib = (b) => (b / 1024).toFixed(1);
  const lines = [
    '| task | server | done | tool calls | text returned (KiB) | changes (gated calls) | prompts to the user |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  const total = {};
  for (const t of [...TASKS, { id: 'all', label: '**all four**' }]) {
    for (const r of runs) {
      const x =
        t.id === 'all'
          ? (total[r.id] ?? { status: '', calls: 0, bytes: 0, prompts: null })
          : r.tasks[t.id];
      if (!x) continue;
      if (t.id !== 'all') {
        const s = (total[r.id] ??= {
          done: 0,
          calls: 0,
          bytes: 0,
          prompts: null,
          changes: null,
        });
        s.done += x.status === 'done' ? 1 : 0;
        s.calls += x.calls;
        s.bytes += x.bytes;
        if (x.prompts != null) s.prompts = (s.prompts ?? 0) + x.prompts;
        if (x.changes != null) s.changes = (s.changes ?? 0) + x.changes;
        s.status = `${s.done}/${TASKS.length}`;
      }
      const done =
        x.status === 'done' ? 'yes' : x.status.split('\n')[0].slice(0, 80);
      lines.push(
        `| ${t.label} | ${LABELS[r.id] ?? r.id} | ${done} | ${x.calls} | ${kib(x.bytes)} | ${x.changes ?? '–'} | ${x.prompts ?? '–'} |`,
      );
    }
  }
  lines.push('');
  for (const r of runs) {
    const s = total[r.id];
    if (!s?.changes) continue;
    lines.push(
      `- ${LABELS[r.id] ?? r.id}: ${((100 * s.prompts) / s.changes).toFixed(1)} prompts per 100 changes ` +
        `(${s.prompts} prompts, ${s.changes} gated calls; ${((100 * s.prompts) / s.calls).toFixed(1)} per 100 tool calls); ` +
        `${r.offering} of the prompts offered this kind of action on this site for N minutes and the rest of the session on this site`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const tmp = gas.tmpRoot();
  const runs = [];
  for (const id of opt.only.split(',')) {
    try {
      runs.push(await runServer(id, tmp));
    } catch (err) {
      log(id, 'broke:', err.stack);
      runs.push({ id, tasks: {}, broke: err.message });
    }
  }
  const md = [
    `# Real app side by side (${new Date().toISOString().slice(0, 10)})`,
    '',
    "Debian's Jupyter Notebook 6.4, four tasks, one scripted agent per server using that server's own tools " +
      '(bench/realapp.mjs). Text returned: the text content of every answer. Changes: the gated calls ' +
      "(mutating or sensitive) the daemon counted. Prompts: approval prompts under Gasoline's default policy " +
      '(no policy file), approved at once by the harness. With a plan: the agent first proposes a plan for the ' +
      "notebook server's origin (interact plan), approved once, before the first task.",
    '',
    table(runs),
    '',
    ...runs.filter((r) => r.broke).map((r) => `- ${r.id} broke: ${r.broke}`),
    ...runs.map((r) => `- ${r.id} ${r.version ?? ''}`),
  ].join('\n');
  console.log(md);
  const dir = path.join(HERE, 'results');
  fs.mkdirSync(dir, { recursive: true });
  const sh = (args) => {
    try {
      return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const sha =
    (sh(['rev-parse', '--short', 'HEAD']) || 'nogit') +
    (sh(['status', '--porcelain']) ? '-dirty' : '');
  const date = new Date().toISOString().slice(0, 10);
  const f = path.join(dir, `realapp-${date}-${sha}.md`);
  fs.writeFileSync(f, md + '\n');
  log('wrote', f);
  fs.rmSync(tmp, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
