// Gasoline's side of the run: build gasoline-host and gasoline-mcp, a temp GASOLINE_HOME
// and a free GASOLINE_PORT, the host registered for a fresh Chromium
// profile, the local-dev approval policy, Chromium with the extension, and
// the daemon's /health saying the extension is connected.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launch } from './chromium.mjs';

// The policy a user would write for local development: every call on
// http://127.0.0.1 is pre-approved.
export const LOCAL_DEV_POLICY = {
  version: 1,
  rules: [
    { effect: 'allow', class: '*', action: '*', origin: 'http://127.0.0.1:*' },
  ],
};

export function freePort() {
  return new Promise((ok, fail) => {
    const srv = net.createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

export function build(repo) {
  execFileSync('make', ['--no-print-directory', 'build'], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return path.join(repo, 'bin', 'gasoline-host');
}

// stdioConfig is the stdio server `gasoline-host mcp-config --client json`
// prints for this home and port (gasoline-mcp beside gasoline-host): what
// an agent's config launches, so the bench launches the same.
export function stdioConfig(host, env) {
  const out = execFileSync(host, ['mcp-config', '--client', 'json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).toString();
  const start = out.indexOf('\n{');
  const end = out.indexOf('\n}', start);
  if (start < 0 || end < 0) {
    throw new Error(`mcp-config printed no stdio JSON:\n${out}`);
  }
  const srv = JSON.parse(out.slice(start + 1, end + 2)).mcpServers.gasoline;
  return { command: srv.command, args: srv.args ?? [], env: srv.env ?? {} };
}

export async function health(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(1000),
    });
    return await res.json();
  } catch {
    return null;
  }
}

// start brings the chain up and returns what the MCP client needs (env)
// plus stop(). tmp is the run's scratch folder; policy is written as
// policy.json (null: none, Gasoline's default policy asks the user).
export async function start({ repo, tmp, policy = LOCAL_DEV_POLICY }) {
  const host = build(repo);
  const home = fs.mkdtempSync(path.join(tmp, 'gasoline-home-'));
  const udd = fs.mkdtempSync(path.join(tmp, 'gasoline-udd-'));
  const port = await freePort();
  const env = { GASOLINE_HOME: home, GASOLINE_PORT: String(port) };
  execFileSync(
    host,
    ['install', '--browser', 'chromium', '--user-data-dir', udd],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (policy) {
    fs.writeFileSync(path.join(home, 'policy.json'), JSON.stringify(policy), {
      mode: 0o600,
    });
  }
  const browser = launch({
    udd,
    extDir: path.join(repo, 'extension'),
    env,
    logPath: path.join(tmp, 'gasoline-chromium.log'),
  });
  const g = {
    host,
    home,
    port,
    env,
    stdio: stdioConfig(host, env),
    browser,
    async stop() {
      await browser.stop();
      const pid = daemonPid(home);
      if (pid) killQuietly(pid);
    },
  };
  const deadline = Date.now() + 30000;
  for (;;) {
    const h = await health(port);
    if (h?.transport_status?.extension === 'connected') break;
    if (Date.now() > deadline) {
      await g.stop();
      throw new Error(
        `extension never connected (health: ${JSON.stringify(h)}); see ${browser.logPath}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return g;
}

export function daemonPid(home) {
  try {
    return JSON.parse(fs.readFileSync(path.join(home, 'state.json'), 'utf8'))
      .pid;
  } catch {
    return 0;
  }
}

function killQuietly(pid) {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

// nativeHostPids lists gasoline-host processes in native-messaging mode
// started from bin (argv[1] is the extension origin).
export function nativeHostPids(bin) {
  const pids = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let argv;
    try {
      argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv[0] === bin && argv[1]?.startsWith('chrome-extension://')) {
      pids.push(Number(name));
    }
  }
  return pids;
}

// rssKiB reads VmRSS of a process (Linux), or null.
export function rssKiB(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+) kB/m.exec(s);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export const tmpRoot = () =>
  fs.mkdtempSync(path.join(os.tmpdir(), 'gasoline-bench-'));
