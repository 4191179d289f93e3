// Debian's classic Jupyter Notebook for the real-app run (bench/realapp.mjs):
// a fresh server per agent, on a loopback port with a token, its notebook,
// config, data and runtime directories temporary, no browser launch, no
// terminals. make jupyter installs it (mk/realapp.mk).
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './gasoline.mjs';

export const JUPYTER = process.env.JUPYTER || '/usr/bin/jupyter-notebook';

// start resolves to { base, token, url(path), api(path), stop() } once the
// server says it is running.
export async function start(tmp) {
  if (!fs.existsSync(JUPYTER))
    throw new Error(`${JUPYTER} is missing: run make jupyter`);
  const root = fs.mkdtempSync(path.join(tmp, 'jupyter-'));
  const dirs = ['nb', 'cfg', 'data', 'rt', 'ipython'].map((d) => {
    const p = path.join(root, d);
    fs.mkdirSync(p);
    return p;
  });
  const [nb, cfg, data, rt, ipython] = dirs;
  const token = crypto.randomBytes(16).toString('hex');
  const port = await freePort();
  const child = spawn(
    JUPYTER,
    [
      '--no-browser',
      '--allow-root',
      '--ip=127.0.0.1',
      `--port=${port}`,
      '--port-retries=0',
      `--notebook-dir=${nb}`,
      `--NotebookApp.token=${token}`,
      '--NotebookApp.password=',
      '--NotebookApp.open_browser=False',
      '--NotebookApp.terminals_enabled=False',
    ],
    {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        HOME: root,
        PATH: '/usr/bin:/bin',
        JUPYTER_NO_CONFIG: '1',
        PYTHONNOUSERSITE: '1',
        JUPYTER_CONFIG_DIR: cfg,
        JUPYTER_DATA_DIR: data,
        JUPYTER_RUNTIME_DIR: rt,
        IPYTHONDIR: ipython,
      },
    },
  );
  const log = fs.createWriteStream(path.join(root, 'jupyter.log'));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('jupyter-notebook did not start in 60 s')),
      60000,
    );
    child.stderr.on('data', (b) => {
      log.write(b);
      if (String(b).includes('is running at')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`jupyter-notebook exited (${code})`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    token,
    url: (p) => `${base}${p}?token=${token}`,
    async api(p) {
      const res = await fetch(base + p, {
        headers: { authorization: `token ${token}` },
        signal: AbortSignal.timeout(10000),
      });
      if (!res.ok) throw new Error(`GET ${p}: HTTP ${res.status}`);
      return res.json();
    },
    async stop() {
      child.stderr.removeAllListeners();
      try {
        process.kill(-child.pid, 'SIGTERM'); // its kernels are its children
      } catch {
        // gone already
      }
      await new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode) resolve();
        else child.on('exit', resolve);
      });
    },
  };
}
