// The operations, each timed N times after warm-up and verified every
// time: a failed verification reports "FAILED (why)", never a timing.
import fs from 'node:fs';
import { call, hasImage, text } from './mcp.mjs';
import { VerifyError, check, failed, na, ok } from './stats.mjs';

// session wraps one connected client with its server's tool mapping.
export function session(server, client) {
  const s = {
    server,
    client,
    call: (name, args) => call(client, name, args),
    // op calls the server's tool for a bench operation.
    async op(op, ...args) {
      const [name, a] = server.tools[op](s, ...args);
      return s.call(name, a);
    },
    // value evaluates expr in the page with the server's own evaluate tool.
    async value(expr) {
      const r = await s.op('evaluate', expr);
      succeeded(r, 'evaluate');
      return server.value(r.result);
    },
  };
  return s;
}

// key names what an op needs: a tool name, or "tool.mode" for Gasoline.
export function key(server, op) {
  if (!server.tools[op]) return `${op} (no such tool)`;
  const [name, args] = server.tools[op]({ pageId: 0 }, 'x', 'x', 'x');
  return args?.what ? `${name}.${args.what}` : name;
}

const short = (s, n = 160) =>
  s.length > n ? `${s.slice(0, n)}…` : s || '(empty)';

function succeeded(r, what) {
  if (r.result.isError) {
    throw new VerifyError(
      `${what}: ${short(text(r.result).replace(/\s+/g, ' '))}`,
    );
  }
}

// everything an agent would read back: text plus structured content.
const seen = (r) =>
  text(r.result) + JSON.stringify(r.result.structuredContent ?? '');

// repeat runs fn warm + n times, keeps the last n samples, and turns a
// failed verification into a FAILED result.
export async function repeat(n, warm, fn) {
  const ms = [];
  const bytes = [];
  const texts = [];
  let note;
  for (let i = 0; i < warm + n; i++) {
    let r;
    try {
      r = await fn(i);
    } catch (err) {
      if (!(err instanceof VerifyError)) throw err;
      return failed(`${err.message} (iteration ${i + 1})`);
    }
    if (i >= warm) {
      ms.push(r.ms);
      if (r.bytes != null) bytes.push(r.bytes);
      if (r.text != null) texts.push(r.text);
      note = r.note ?? note;
    }
  }
  return ok(ms, bytes, note, texts);
}

async function open(s, url) {
  const r = await s.op('navigate', url);
  succeeded(r, `navigate ${url}`);
  check(seen(r).includes(url), `navigate did not report ${url}`);
}

async function refOf(s, role, name) {
  const r = await s.op('snapshot');
  succeeded(r, 'snapshot');
  const ref = s.server.ref(text(r.result), role, name);
  check(ref, `no ref for ${role} "${name}" in the snapshot`);
  return ref;
}

// A 100 KB string with planted secrets, built in the page.
export const SECRETS = [
  'AKIA' + 'IOSFODNN7BENCHKY', // an AWS key id is AKIA + 16
  'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJiZW5jaCIsIm5hbWUiOiJHYXNvbGluZSJ9.' +
    'c2lnbmF0dXJlLWJlbmNoLXNpZ25hdHVyZS14eXo',
];
const BIG = `(() => { const s = ${JSON.stringify(SECRETS)}; let out = '';
  for (let i = 0; out.length < 100000; i++)
    out += 'row ' + i + ' lorem ipsum dolor sit amet ' + (i % 40 === 0 ? s[i % 3] + ' ' : '');
  return out; })()`;

const textBytes = (r) => Buffer.byteLength(text(r.result));

// The large page's toolbar: Tool 40 toggles aria-pressed when clicked.
const TOOL = 'Tool 40';
const PRESSED =
  "document.querySelectorAll('.tool')[39].getAttribute('aria-pressed')";

// clickTool clicks ref (the button "Tool 40") and checks that the page saw
// it: aria-pressed flipped.
async function clickTool(s, ref) {
  const was = await s.value(PRESSED);
  const c = await s.op('click', ref, `${TOOL} button`);
  succeeded(c, `click ${ref}`);
  const now = await s.value(PRESSED);
  check(now !== was, `clicking ${ref} left aria-pressed at ${now}`);
}

// findOp: search the large page's snapshot for "Tool 40"; the answer's ref
// is clicked (untimed) to show it is usable at once.
const findOp = {
  id: 'find',
  label: `find "${TOOL}" (large), ref clicked`,
  uses: ['navigate', 'find', 'click', 'evaluate'],
  before: (s, ctx) => open(s, `${ctx.origin}/pages/large.html`),
  async run(s) {
    const r = await s.op('find', TOOL);
    succeeded(r, 'find');
    const ref = s.server.ref(text(r.result), 'button', TOOL);
    check(ref, `no ref for button "${TOOL}" in the find answer`);
    await clickTool(s, ref);
    return { ...r, text: textBytes(r) };
  },
};

// diffOp: click "Tool 40" (untimed), then ask what changed.
const diffOp = {
  id: 'diff',
  label: `diff after a click (large)`,
  uses: ['navigate', 'snapshot', 'click', 'evaluate', 'diff'],
  async before(s, ctx) {
    await open(s, `${ctx.origin}/pages/large.html`);
    s.ref = await refOf(s, 'button', TOOL);
  },
  async run(s) {
    await clickTool(s, s.ref);
    const r = await s.op('diff');
    succeeded(r, 'diff');
    check(
      text(r.result).includes(`button "${TOOL}" [pressed]`) ||
        text(r.result).includes(`was: button "${TOOL}" [pressed]`),
      `the diff does not show button "${TOOL}" toggling`,
    );
    return { ...r, text: textBytes(r) };
  },
};

// OPS: id, label, the bench operations it uses, and run(s, ctx, i).
export const OPS = [
  {
    id: 'navigate',
    label: 'navigate',
    uses: ['navigate'],
    async run(s, ctx, i) {
      const url = `${ctx.origin}/pages/form.html?nav=${i}`;
      const r = await s.op('navigate', url);
      succeeded(r, 'navigate');
      check(seen(r).includes(url), `navigate did not land on ${url}`);
      return r;
    },
  },
  snapshotOp(
    'snapshot_form',
    'snapshot (form)',
    '/pages/form.html',
    'More options',
  ),
  snapshotOp(
    'snapshot_large',
    'snapshot (large, ~3k el.)',
    '/pages/large.html',
    'Subscribe',
  ),
  {
    id: 'click',
    label: 'click by ref',
    uses: ['navigate', 'snapshot', 'click', 'evaluate'],
    async before(s, ctx) {
      await open(s, `${ctx.origin}/pages/form.html`);
      s.ref = await refOf(s, 'checkbox', 'I accept the terms');
    },
    async run(s) {
      const expr = "document.getElementById('terms').checked";
      const was = await s.value(expr);
      const r = await s.op('click', s.ref, 'I accept the terms checkbox');
      succeeded(r, 'click');
      const now = await s.value(expr);
      check(now === !was, `checkbox stayed ${now} after the click`);
      return r;
    },
  },
  {
    id: 'type',
    label: 'type',
    uses: ['navigate', 'snapshot', 'type', 'evaluate'],
    async before(s, ctx) {
      await open(s, `${ctx.origin}/pages/form.html`);
      s.ref = await refOf(s, 'textbox', 'Full name');
    },
    async run(s, _ctx, i) {
      const want = `bench text ${i}`;
      const r = await s.op('type', s.ref, 'Full name textbox', want);
      succeeded(r, 'type');
      const got = await s.value("document.getElementById('name').value");
      check(
        got === want,
        `field holds ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
      );
      return r;
    },
  },
  {
    id: 'evaluate',
    label: 'evaluate 1+1',
    uses: ['navigate', 'evaluate'],
    before: (s, ctx) => open(s, `${ctx.origin}/pages/form.html`),
    async run(s) {
      const r = await s.op('evaluate', '1+1');
      succeeded(r, 'evaluate');
      const v = s.server.value(r.result);
      check(v === 2, `evaluate returned ${JSON.stringify(v)}`);
      return r;
    },
  },
  {
    id: 'screenshot',
    label: 'screenshot',
    uses: ['navigate', 'screenshot'],
    before: (s, ctx) => open(s, `${ctx.origin}/pages/form.html`),
    run: (s) => screenshot(s),
  },
  {
    id: 'screenshot_plain',
    label: 'screenshot (nothing to mask)',
    uses: ['navigate', 'screenshot'],
    before: (s, ctx) => open(s, `${ctx.origin}/bench/form-plain.html`),
    run: (s) => screenshot(s),
  },
  {
    id: 'console',
    label: 'read console',
    uses: ['navigate', 'console'],
    before: (s, ctx) => openErrors(s, ctx, 'console', 'bench-planted-error'),
    run: (s) => listed(s, 'console', 'bench-planted-error'),
  },
  {
    id: 'network',
    label: 'list network',
    uses: ['navigate', 'network'],
    before: (s, ctx) => openErrors(s, ctx, 'network', 'missing-endpoint.json'),
    run: (s) => listed(s, 'network', 'missing-endpoint.json'),
  },
  findOp,
  diffOp,
  {
    id: 'redact',
    label: 'evaluate 100 KB w/ secrets',
    uses: ['navigate', 'evaluate'],
    before: (s, ctx) => open(s, `${ctx.origin}/pages/form.html`),
    async run(s) {
      const r = await s.op('evaluate', BIG);
      succeeded(r, 'evaluate');
      const out = seen(r);
      const leaked = SECRETS.filter((x) => out.includes(x)).length;
      if (s.server.id === 'gasoline') {
        check(
          !leaked,
          `${leaked} of ${SECRETS.length} planted secrets came back unredacted`,
        );
        check(r.bytes > 50000, `only ${r.bytes} bytes came back (result cap?)`);
        return { ...r, note: 'secrets redacted' };
      }
      check(r.bytes > 100000, `only ${r.bytes} bytes came back`);
      return { ...r, note: leaked ? 'not redacted' : undefined };
    },
  },
];

function snapshotOp(id, label, path, name) {
  return {
    id,
    label,
    uses: ['navigate', 'snapshot'],
    size: true,
    before: (s, ctx) => open(s, `${ctx.origin}${path}`),
    async run(s) {
      const r = await s.op('snapshot');
      succeeded(r, 'snapshot');
      check(seen(r).includes(name), `button "${name}" not in the snapshot`);
      return { ...r, text: textBytes(r) };
    },
  };
}

// screenshot takes one: an image inline, or an image file it names.
async function screenshot(s) {
  const r = await s.op('screenshot');
  succeeded(r, 'screenshot');
  const file = /(\/[\w./-]+\.(?:png|jpe?g|webp))/.exec(seen(r))?.[1];
  check(
    hasImage(r.result) ||
      (file && fs.statSync(file, { throwIfNoEntry: false })?.size > 0),
    'no image inline and no image file',
  );
  return r;
}

// listed reads the console or the network list; it must hold want.
async function listed(s, op, want) {
  const r = await s.op(op);
  succeeded(r, op);
  check(seen(r).includes(want), `${want} is missing from the ${op} list`);
  return r;
}

// openErrors loads the errors page and waits (bounded) until op lists want:
// the page's fetch settles after load.
async function openErrors(s, ctx, op, want) {
  await open(s, `${ctx.origin}/bench/errors.html`);
  for (let i = 0; ; i++) {
    try {
      return await listed(s, op, want);
    } catch (err) {
      if (i >= 50) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// runOp measures one op on one session, or says why it cannot.
export async function runOp(op, s, ctx, available) {
  const missing = op.uses
    .map((u) => key(s.server, u))
    .filter((k) => !available.has(k));
  if (missing.length)
    return na(`not served: ${[...new Set(missing)].join(', ')}`);
  try {
    if (op.before) await op.before(s, ctx);
  } catch (err) {
    if (err instanceof VerifyError) return failed(`setup: ${err.message}`);
    throw err;
  }
  return repeat(ctx.n, ctx.warm, (i) => op.run(s, ctx, i));
}
