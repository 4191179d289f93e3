// The three servers under test: how each is spawned and how each bench
// operation maps onto its tools. Tool names and arguments were checked
// against each server's tools/list; run.mjs checks them again every run
// (a missing tool turns that op into "n/a").
import path from 'node:path';
import { CHROMIUM, QUIET_FLAGS } from './chromium.mjs';
import { text } from './mcp.mjs';

const BIN = path.join(import.meta.dirname, '..', 'node_modules', '.bin');

// A snapshot line `role "name" ... [eN]` (Gasoline) or `- role "name" ...
// [ref=eN]` (Playwright).
function ariaRef(snapshot, role, name) {
  for (const line of snapshot.split('\n')) {
    if (!line.includes(`${role} "${name}"`)) continue;
    const m = /\[(?:ref=([\w-]+)|(e\d+))\]/.exec(line);
    if (m) return m[1] ?? m[2];
  }
  return null;
}

// Playwright prints `### Result\n<json>\n### ...`.
function afterHeading(t, heading) {
  const i = t.indexOf(heading);
  if (i < 0) return undefined;
  const rest = t.slice(i + heading.length);
  const j = rest.indexOf('\n###');
  return (j < 0 ? rest : rest.slice(0, j)).trim();
}

function parseJSON(s) {
  if (s === undefined) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export const playwright = {
  id: 'playwright',
  label: 'Playwright MCP',
  pkg: '@playwright/mcp',
  spawn: ({ tmp, configPath }) => ({
    command: path.join(BIN, 'playwright-mcp'),
    args: [
      '--headless',
      '--isolated',
      '--no-sandbox',
      '--executable-path',
      CHROMIUM,
      '--config',
      configPath,
      '--output-dir',
      path.join(tmp, 'playwright-out'),
      ...(process.env.BENCH_PLAYWRIGHT_SETTLE
        ? ['--timeout-settle', process.env.BENCH_PLAYWRIGHT_SETTLE]
        : []),
    ],
    cwd: tmp,
  }),
  quirks: () => [
    process.env.BENCH_PLAYWRIGHT_SETTLE
      ? `run with --timeout-settle ${process.env.BENCH_PLAYWRIGHT_SETTLE} (BENCH_PLAYWRIGHT_SETTLE).`
      : 'browser_click and browser_evaluate end with a fixed wait for triggered work ' +
        '(--timeout-settle, default 500 ms, kept: it is what users get); browser_type does not. ' +
        'BENCH_PLAYWRIGHT_SETTLE=0 runs without it.',
    'browser_navigate writes the page snapshot to a file under --output-dir and returns its path, ' +
      'so navigate answers are small; browser_take_screenshot saves a file and also returns the image.',
    'Refs are passed as `target` (0.0.83 renamed `ref`); browser_console_messages needs `level`, ' +
      'browser_network_requests `static`, browser_take_screenshot `scale`.',
    'Extra Chromium flags go through --config (browser.launchOptions.args), all but --disable-features ' +
      '(its own list already has NetworkTimeServiceQuerying; a second switch would replace it); --isolated keeps the ' +
      'profile in memory, so the Preferences seed of E2E-CHROMIUM.md cannot be written (all pages are on 127.0.0.1).',
  ],
  // Extra Chromium flags go through the config file (launchOptions.args).
  // Playwright's own --disable-features list already has
  // NetworkTimeServiceQuerying, and a second --disable-features would
  // replace that list (Chromium keeps the last value of a switch).
  config: () => ({
    browser: {
      launchOptions: {
        args: QUIET_FLAGS.filter((f) => !f.startsWith('--disable-features=')),
      },
    },
  }),
  tools: {
    navigate: (_s, url) => ['browser_navigate', { url }],
    snapshot: () => ['browser_snapshot', {}],
    find: (_s, q) => ['browser_find', { text: q }],
    click: (_s, ref, label) => [
      'browser_click',
      { target: ref, element: label },
    ],
    type: (_s, ref, label, t) => [
      'browser_type',
      { target: ref, element: label, text: t },
    ],
    evaluate: (_s, expr) => [
      'browser_evaluate',
      { function: `() => (${expr})` },
    ],
    screenshot: () => [
      'browser_take_screenshot',
      { scale: 'css', type: 'png' },
    ],
    console: () => ['browser_console_messages', { level: 'info' }],
    network: () => ['browser_network_requests', { static: false }],
  },
  ref: ariaRef,
  value: (result) => parseJSON(afterHeading(text(result), '### Result')),
};

export const devtools = {
  id: 'devtools',
  label: 'chrome-devtools-mcp',
  pkg: 'chrome-devtools-mcp',
  spawn: ({ tmp }) => ({
    command: path.join(BIN, 'chrome-devtools-mcp'),
    args: [
      '--headless',
      '--isolated',
      '--executablePath',
      CHROMIUM,
      '--no-usage-statistics',
      '--no-performance-crux',
      '--chromeArg=--no-sandbox',
      ...QUIET_FLAGS.map((f) => `--chromeArg=${f}`),
    ],
    cwd: tmp,
    // No telemetry, no update check (it spawns `npm view`), no config
    // discovery from the working directory.
    env: {
      CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1',
      CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1',
      CHROME_DEVTOOLS_MCP_NO_CONFIG_DISCOVERY: '1',
    },
  }),
  quirks: () => [
    'Page-scoped tools need `pageId` (page-id routing is on by default); taken from list_pages once.',
    '`type` is the `fill` tool (type_text types into the focused element without a target).',
    'Usage statistics, CrUX lookups, the update check (a detached `npm view`) and config discovery ' +
      'are switched off with --no-usage-statistics --no-performance-crux and CHROME_DEVTOOLS_MCP_NO_* env.',
    'Extra Chromium flags go through --chromeArg; --isolated uses a temp profile, so the Preferences seed ' +
      'cannot be written (all pages are on 127.0.0.1).',
  ],
  // Page-scoped tools need pageId (page-id routing is on by default).
  async setup(session) {
    const r = await session.call('list_pages', {});
    const m = /^(\d+):.*\[selected\]/m.exec(text(r.result));
    if (!m)
      throw new Error(`list_pages: no selected page in ${text(r.result)}`);
    session.pageId = Number(m[1]);
  },
  tools: {
    navigate: (s, url) => [
      'navigate_page',
      { pageId: s.pageId, type: 'url', url },
    ],
    snapshot: (s) => ['take_snapshot', { pageId: s.pageId }],
    click: (s, ref) => ['click', { pageId: s.pageId, uid: ref }],
    type: (s, ref, _l, t) => ['fill', { pageId: s.pageId, uid: ref, value: t }],
    evaluate: (s, expr) => [
      'evaluate_script',
      { pageId: s.pageId, function: `() => (${expr})` },
    ],
    screenshot: (s) => ['take_screenshot', { pageId: s.pageId }],
    console: (s) => ['list_console_messages', { pageId: s.pageId }],
    network: (s) => ['list_network_requests', { pageId: s.pageId }],
  },
  ref(snapshot, role, name) {
    const m = new RegExp(`uid=(\\S+) ${role} "${name}"`).exec(snapshot);
    return m ? m[1] : null;
  },
  value(result) {
    const m = /```json\n([\s\S]*?)\n```/.exec(text(result));
    return m ? parseJSON(m[1]) : undefined;
  },
};

// Gasoline: five tools dispatched by `what`. `modes` lists what each op
// needs from this build (configure describe_capabilities says what it
// serves).
export const gasoline = {
  id: 'gasoline',
  label: 'Gasoline',
  // What `gasoline-host mcp-config` prints: gasoline-mcp, beside
  // gasoline-host.
  spawn: ({ chain, tmp }) => ({
    command: chain.stdio.command,
    args: chain.stdio.args,
    env: { ...chain.env, ...chain.stdio.env },
    cwd: tmp,
  }),
  tools: {
    navigate: (_s, url) => ['interact', { what: 'navigate', url }],
    snapshot: () => ['observe', { what: 'snapshot' }],
    find: (_s, q) => ['observe', { what: 'snapshot', find: q }],
    diff: () => ['observe', { what: 'snapshot', diff: true }],
    click: (_s, ref) => ['interact', { what: 'click', ref }],
    type: (_s, ref, _l, t) => [
      'interact',
      { what: 'type', ref, text: t, clear: true },
    ],
    evaluate: (_s, expr) => ['interact', { what: 'execute_js', script: expr }],
    screenshot: () => ['observe', { what: 'screenshot' }],
    console: () => ['observe', { what: 'logs' }],
    network: () => ['observe', { what: 'network_waterfall' }],
  },
  quirks: () => [
    "observe logs answers the tab's captured history (cursor-based, limit 100), the peers only what " +
      'happened since the last navigation; network_waterfall, like the peers, lists the current page ' +
      '(scope:"all" for the history).',
    'The local-dev policy (allow everything on http://127.0.0.1:*) pre-approves navigate, click, type ' +
      'and execute_js; no call in the latency table waits for a person.',
  ],
  ref: ariaRef,
  value(result) {
    const sc = result?.structuredContent;
    if (sc && typeof sc === 'object') {
      for (const k of ['result', 'value']) {
        if (!(k in sc)) continue;
        const v = sc[k];
        return v && typeof v === 'object' && 'value' in v ? v.value : v;
      }
    }
    return parseJSON(text(result).trim());
  },
};
