// The Chromium browsers this process started, directly or through an MCP
// server, so that none outlives the run. Linux /proc only.
import fs from 'node:fs';
import { CHROMIUM } from './chromium.mjs';

function table() {
  const procs = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      procs.push({ pid: Number(name), ppid, argv });
    } catch {
      // gone meanwhile
    }
  }
  return procs;
}

// browsers lists the Chromium browser processes (not renderers, GPU, …)
// descending from root (this process by default; a peer's detached daemon
// otherwise).
export function browsers(root = process.pid) {
  const procs = table();
  const mine = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) {
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
      }
    }
  }
  return procs
    .filter((p) => mine.has(p.pid) && p.argv[0] === CHROMIUM)
    .filter((p) => !p.argv.some((a) => a.startsWith('--type=')))
    .map((p) => p.pid);
}

const alive = (pid) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
};

// reap waits up to boundMs for pids to exit, then sends SIGTERM to each
// one left (by pid) and returns them.
export async function reap(pids, boundMs = 5000) {
  const deadline = Date.now() + boundMs;
  while (pids.some(alive) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const left = pids.filter(alive);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  return left;
}
