#!/usr/bin/env node
// Replays a Gasoline reproduction (generate {what:"reproduction"}) in
// Debian Chromium with playwright-core, then reports the page's state.
//
//   node tools/replay/replay.mjs script.js [--check EXPR]
//
// The script's replay(page) runs on a fresh page with its viewport; EXPR,
// a JavaScript expression evaluated in the page afterwards, goes to the
// JSON report on stdout: {"ok", "url", "title", "check"}. Exit 1 on any
// failure. GASOLINE_CHROMIUM (default /usr/lib/chromium/chromium) names
// the browser. Only loopback is reachable (the same network hygiene as
// the Go end-to-end tests).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const script = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--check');
const checkAt = args.indexOf('--check');
const check = checkAt >= 0 ? args[checkAt + 1] : '';
if (!script) {
  console.error('usage: node replay.mjs script.js [--check EXPR]');
  process.exit(2);
}

// The script is CommonJS; copy it to a .cjs file so the nearest
// package.json's "type" cannot change how it loads.
const dir = mkdtempSync(join(tmpdir(), 'gasoline-replay-'));
const copy = join(dir, 'reproduction.cjs');
copyFileSync(resolve(script), copy);
const { replay, viewport } = createRequire(import.meta.url)(copy);

const browser = await chromium.launch({
  executablePath: process.env.GASOLINE_CHROMIUM || '/usr/lib/chromium/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    '--disable-features=NetworkTimeServiceQuerying',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-domain-reliability',
    '--no-pings',
  ],
});
let code = 0;
try {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(10_000);
  await replay(page);
  const report = { ok: true, url: page.url(), title: await page.title() };
  if (check) report.check = await page.evaluate(check);
  process.stdout.write(JSON.stringify(report) + '\n');
} catch (err) {
  process.stdout.write(JSON.stringify({ ok: false, error: String(err?.message ?? err) }) + '\n');
  code = 1;
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
