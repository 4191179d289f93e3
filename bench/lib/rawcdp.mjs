// Raw CDP: the floor under every server. The same Chromium binary and
// flags, driven over --remote-debugging-pipe by this process with no MCP
// server, no relay and CDP's default parameters, on a page target of its
// own (a foreground tab, as Playwright's). It answers the bench's calls
// with results shaped like MCP tool results, so the same ops time and
// verify it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CHROMIUM, QUIET_FLAGS, seedProfile } from './chromium.mjs';

const TIMEOUT_MS = 60000;

// Pipe is one CDP connection over Chromium's fds 3 (in) and 4 (out):
// NUL-terminated JSON messages.
class Pipe {
  constructor(child) {
    this.out = child.stdio[3];
    this.nextId = 1;
    this.pending = new Map();
    this.waiters = [];
    let buf = '';
    child.stdio[4].setEncoding('utf8');
    child.stdio[4].on('data', (chunk) => {
      buf += chunk;
      for (let i = buf.indexOf('\0'); i >= 0; i = buf.indexOf('\0')) {
        this.receive(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    });
  }

  receive(msg) {
    if (msg.id) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(`${p.method}: ${msg.error.message}`));
      else p?.resolve(msg.result);
      return;
    }
    this.waiters = this.waiters.filter((w) => !w(msg));
  }

  send(method, params = {}, sessionId) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no answer in ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.pending.set(id, {
        method,
        resolve: (v) => (clearTimeout(t), resolve(v)),
        reject: (e) => (clearTimeout(t), reject(e)),
      });
      this.out.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
    });
  }

  // event resolves with the next event of method in sessionId.
  event(method, sessionId) {
    return new Promise((resolve) =>
      this.waiters.push((m) => {
        if (m.method !== method || m.sessionId !== sessionId) return false;
        resolve(m.params);
        return true;
      }),
    );
  }
}

// launch starts Chromium with the pipe and opens one page target.
export async function launch(tmp) {
  const udd = fs.mkdtempSync(path.join(tmp, 'rawcdp-udd-'));
  seedProfile(udd);
  const log = fs.openSync(path.join(tmp, 'rawcdp-chromium.log'), 'w');
  const child = spawn(
    CHROMIUM,
    [
      '--headless=new',
      '--no-sandbox',
      `--user-data-dir=${udd}`,
      '--remote-debugging-pipe',
      ...QUIET_FLAGS,
      'about:blank',
    ],
    { stdio: ['ignore', log, log, 'pipe', 'pipe'] },
  );
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const pipe = new Pipe(child);
  const { targetId } = await pipe.send('Target.createTarget', {
    url: 'about:blank',
  });
  const { sessionId } = await pipe.send('Target.attachToTarget', {
    targetId,
    flatten: true,
  });
  await pipe.send('Page.enable', {}, sessionId);
  return {
    pid: child.pid,
    pipe,
    sessionId,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      fs.closeSync(log);
    },
  };
}

const textResult = (text) => ({ content: [{ type: 'text', text }] });

// client is what ops.mjs calls (callTool), over CDP.
function client(b) {
  const { pipe, sessionId } = b;
  const calls = {
    async 'Page.navigate'({ url }) {
      const loaded = pipe.event('Page.loadEventFired', sessionId);
      const r = await pipe.send('Page.navigate', { url }, sessionId);
      if (r.errorText) throw new Error(`navigate: ${r.errorText}`);
      await loaded;
      return textResult(`navigated to ${url}`);
    },
    async 'Runtime.evaluate'(p) {
      const r = await pipe.send('Runtime.evaluate', p, sessionId);
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.text);
      return { content: [], structuredContent: { value: r.result.value } };
    },
    async 'Page.captureScreenshot'(p) {
      const r = await pipe.send('Page.captureScreenshot', p, sessionId);
      return {
        content: [{ type: 'image', data: r.data, mimeType: 'image/png' }],
      };
    },
  };
  return {
    async callTool({ name, arguments: args }) {
      try {
        return await calls[name](args);
      } catch (err) {
        return {
          isError: true,
          content: [{ type: 'text', text: err.message }],
        };
      }
    },
  };
}

// The work Gasoline's screenshot asks of Chrome, in raw CDP: the agent's
// tab is a background tab, held painting with a screencast for the
// capture (Chrome's fast PNG encoder, as Gasoline asks for a viewport
// PNG), with the mask over sensitive fields installed before and checked
// and removed after (internal/sensitive's selectors, observe/mask.go's
// rule). The mask's style goes in first and every element's computed
// style is read after it, as Gasoline's check for text drawn as dots does:
// one style recalc in the script, none left for the capture's frame.
const MASK_SELECTORS = [
  'input[type=password i]',
  'input[autocomplete*=password i]',
  'input[autocomplete~=one-time-code i]',
  'input[autocomplete^="cc-" i]',
  'input[autocomplete*=" cc-" i]',
  'input[name*=card i]',
  'input[id*=card i]',
  'input[name*=cvv i]',
  'input[name*=cvc i]',
  'input[name*=csc i]',
  'input[id*=cvv i]',
  'input[id*=cvc i]',
  'input[name*=ccnum i]',
  'input[name*=cc-num i]',
  '[data-gasoline-mask]',
];
const MASK_RULE =
  '{filter:brightness(0) !important;color:#000 !important;-webkit-text-fill-color:#000 !important;' +
  'background:#000 !important;text-shadow:none !important}';
export const MASK_ON = `(() => { const s = document.createElement('style'); s.id = '__bench_mask';
  s.textContent = ${JSON.stringify(MASK_SELECTORS)}.map((x) => x + ${JSON.stringify(MASK_RULE)}).join('\\n');
  document.head.appendChild(s);
  document.querySelectorAll('*').forEach((e) => getComputedStyle(e).getPropertyValue('-webkit-text-security'));
  return 1; })()`;
export const MASK_OFF = `(() => { const s = document.getElementById('__bench_mask'); s?.remove(); return !!s; })()`;
// HOLD keeps a background tab painting for a capture (Gasoline's screencast
// hold, internal/observe): the smallest frames, almost never sent.
export const HOLD = {
  format: 'jpeg',
  quality: 1,
  maxWidth: 8,
  maxHeight: 8,
  everyNthFrame: 1 << 30,
};

// sameWork times n (after warm) masked captures of url in a background tab
// held painting: what Gasoline's screenshot asks of Chrome, without MCP or
// the extension link.
async function sameWork(b, url, n, warm) {
  const { pipe } = b;
  const { targetId } = await pipe.send('Target.createTarget', {
    url: 'about:blank',
    background: true,
  });
  const { sessionId: s } = await pipe.send('Target.attachToTarget', {
    targetId,
    flatten: true,
  });
  await pipe.send('Page.enable', {}, s);
  const loaded = pipe.event('Page.loadEventFired', s);
  await pipe.send('Page.navigate', { url }, s);
  await loaded;
  const ev = (expression) =>
    pipe.send('Runtime.evaluate', { expression, returnByValue: true }, s);
  const ms = [];
  for (let i = 0; i < warm + n; i++) {
    const t0 = performance.now();
    await Promise.all([
      ev(MASK_ON),
      pipe.send('Page.startScreencast', HOLD, s),
    ]);
    const shot = await pipe.send(
      'Page.captureScreenshot',
      { format: 'png', optimizeForSpeed: true },
      s,
    );
    const [held] = await Promise.all([
      ev(MASK_OFF),
      pipe.send('Page.stopScreencast', {}, s),
    ]);
    if (!shot.data || held.result.value !== true) {
      throw new Error('same-work capture: no image, or the mask did not hold');
    }
    if (i >= warm) ms.push(performance.now() - t0);
  }
  return ms;
}

export const rawcdp = {
  id: 'rawcdp',
  label: 'raw CDP',
  direct: true,
  // start launches the browser and returns { client, stop }.
  async start(tmp) {
    const t0 = performance.now();
    const b = await launch(tmp);
    return {
      client: client(b),
      stop: () => b.stop(),
      ms: performance.now() - t0,
      sameWork: (url, n, warm) => sameWork(b, url, n, warm),
    };
  },
  quirks: () => [
    'The floor: the same Chromium binary and flags over --remote-debugging-pipe, no MCP server and ' +
      'no relay, CDP defaults (Page.captureScreenshot {format:"png"}), on a foreground page target of its own. ' +
      'navigate waits for Page.loadEventFired.',
  ],
  tools: {
    navigate: (_s, url) => ['Page.navigate', { url }],
    evaluate: (_s, expr) => [
      'Runtime.evaluate',
      { expression: expr, returnByValue: true },
    ],
    screenshot: () => ['Page.captureScreenshot', { format: 'png' }],
  },
  value: (result) => result?.structuredContent?.value,
};
