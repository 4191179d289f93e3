// Debian Chromium the way ../shared/guides/E2E-CHROMIUM.md measured it:
// headless, a fresh profile, network hygiene (nothing but loopback).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/lib/chromium/chromium';

// Flags every browser in the run gets (Gasoline's and both peers').
export const QUIET_FLAGS = [
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--metrics-recording-only',
  '--no-pings',
  '--disable-breakpad',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
  '--disable-features=NetworkTimeServiceQuerying',
  '--component-updater=url-source=http://127.0.0.1:1/',
];

export function chromiumVersion() {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).trim();
  } catch (err) {
    return `unknown (${err.message.split('\n')[0]})`;
  }
}

// seedProfile writes the Preferences that stop Chromium probing public
// resolvers after a failed lookup.
export function seedProfile(udd) {
  const dir = path.join(udd, 'Default');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'Preferences'),
    JSON.stringify({ alternate_error_pages: { enabled: false } }),
  );
}

// launch starts Chromium with the unpacked extension and resolves to
// { pid, stop() }; stop sends SIGTERM to the browser pid and waits.
export function launch({ udd, extDir, env, logPath }) {
  seedProfile(udd);
  const args = [
    '--headless=new',
    '--no-sandbox',
    `--user-data-dir=${udd}`,
    `--load-extension=${extDir}`,
    `--disable-extensions-except=${extDir}`,
    ...QUIET_FLAGS,
    '--enable-logging=stderr',
    '--v=0',
    'about:blank',
  ];
  const log = fs.openSync(logPath, 'w');
  const child = spawn(CHROMIUM, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return {
    pid: child.pid,
    logPath,
    exited,
    async stop(boundMs = 10000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), boundMs);
      await exited;
      clearTimeout(t);
      fs.closeSync(log);
    },
  };
}
