// agent-browser (npm `agent-browser`, vercel-labs): a Rust CLI whose
// `agent-browser mcp` stdio server runs each tool call as a child CLI
// process talking to a long-lived daemon, which owns the browser. The npm
// package ships prebuilt binaries per platform; bin/agent-browser.js only
// picks one and re-spawns it (a global install's postinstall relinks the
// command to the binary itself), so the bench spawns the binary directly.
//
// Browser: agent-browser looks for a Chrome it installed itself
// (`agent-browser install`, under ~/.agent-browser/browsers), then for
// google-chrome / chromium on PATH; AGENT_BROWSER_EXECUTABLE_PATH points
// it at the run's Debian Chromium instead (nothing is downloaded).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM, QUIET_FLAGS } from './chromium.mjs';
import { text } from './mcp.mjs';
import { browsers } from './procs.mjs';

const PKG = path.join(
  import.meta.dirname,
  '..',
  'node_modules',
  'agent-browser',
);

// binary is the package's native executable for this machine, named as its
// bin/agent-browser.js names it (glibc Linux, macOS; musl and Windows are
// not bench platforms).
export function binary() {
  const osKey = { linux: 'linux', darwin: 'darwin' }[os.platform()];
  const arch = { x64: 'x64', arm64: 'arm64' }[os.arch()];
  if (!osKey || !arch)
    throw new Error(
      `agent-browser: no binary for ${os.platform()}-${os.arch()}`,
    );
  const bin = path.join(PKG, 'bin', `agent-browser-${osKey}-${arch}`);
  // npm keeps the tarball's 0644; the package's postinstall (or its JS
  // wrapper, on first run) makes the binary executable.
  fs.accessSync(bin, fs.constants.R_OK);
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    fs.chmodSync(bin, 0o755);
  }
  return bin;
}

// Its own launch already disables Translate; a second --disable-features
// would replace that list (Chromium keeps the last value of a switch).
const ARGS = [
  '--no-sandbox',
  ...QUIET_FLAGS.filter((f) => !f.startsWith('--disable-features=')),
  '--disable-features=Translate,NetworkTimeServiceQuerying',
];

// env keeps everything agent-browser writes (config discovery under HOME,
// the daemon's socket and pid files, screenshots) inside the run's scratch
// folder.
function env(tmp) {
  const home = path.join(tmp, 'agent-browser-home');
  fs.mkdirSync(home, { recursive: true });
  return {
    HOME: home,
    AGENT_BROWSER_SOCKET_DIR: path.join(home, 'sockets'),
    AGENT_BROWSER_EXECUTABLE_PATH: CHROMIUM,
    AGENT_BROWSER_ARGS: ARGS.join('\n'),
    // The outdated-Chrome check fetches chromereleases.googleblog.com.
    AGENT_BROWSER_NO_VERSION_CHECK: '1',
  };
}

// The tools profiles that serve every bench op: core (open, snapshot,
// click, fill, eval, screenshot), network (network_requests), debug
// (console).
const TOOLS = 'core,network,debug';

// daemonPid reads the daemon's pid file (default session).
function daemonPid(tmp) {
  const f = path.join(env(tmp).AGENT_BROWSER_SOCKET_DIR, 'default.pid');
  const pid = Number.parseInt(fs.readFileSync(f, 'utf8'), 10);
  return Number.isFinite(pid) && pid > 0 ? pid : 0;
}

export const agentBrowser = {
  id: 'agentbrowser',
  label: 'agent-browser',
  pkg: 'agent-browser',
  spawn: ({ tmp }) => ({
    command: binary(),
    args: ['mcp', '--tools', TOOLS],
    env: env(tmp),
    cwd: tmp,
  }),
  quirks: () => [
    `\`agent-browser mcp --tools ${TOOLS}\` (the native binary the package ships, spawned directly); ` +
      'each tool call runs the CLI as a child process that talks to its daemon, which owns Chromium.',
    'Chromium from AGENT_BROWSER_EXECUTABLE_PATH, the run flags through AGENT_BROWSER_ARGS ' +
      '(--disable-features merged with its own Translate); it adds --headless=new, --window-size=1280,720 and a temp profile.',
    'agent_browser_snapshot with its defaults (interactive: true, the interactive elements and headings); ' +
      '`type` is agent_browser_fill (clear and fill, like Playwright MCP browser_type).',
    'The daemon and its browser outlive the MCP server; the bench closes them (`agent-browser close --all`).',
  ],
  // pids of the daemon's browser, for the run's leak check.
  browsers(tmp) {
    try {
      return browsers(daemonPid(tmp));
    } catch {
      return [];
    }
  },
  daemonPid(tmp) {
    try {
      return daemonPid(tmp);
    } catch {
      return 0;
    }
  },
  // teardown closes every session of this run's daemon, which stops it and
  // its browser.
  async teardown(tmp) {
    try {
      execFileSync(binary(), ['close', '--all'], {
        env: { ...process.env, ...env(tmp) },
        stdio: 'ignore',
        timeout: 30000,
      });
    } catch {
      // nothing running, or the daemon is gone
    }
  },
  tools: {
    navigate: (_s, url) => ['agent_browser_open', { url }],
    snapshot: () => ['agent_browser_snapshot', {}],
    click: (_s, ref) => ['agent_browser_click', { selector: `@${ref}` }],
    type: (_s, ref, _l, t) => [
      'agent_browser_fill',
      { selector: `@${ref}`, text: t },
    ],
    evaluate: (_s, expr) => ['agent_browser_eval', { script: expr }],
    screenshot: () => ['agent_browser_screenshot', {}],
    console: () => ['agent_browser_console', {}],
    network: () => ['agent_browser_network_requests', {}],
  },
  // `- checkbox "I accept the terms" [checked=false, ref=e6]`
  ref(snapshot, role, name) {
    for (const line of snapshot.split('\n')) {
      if (!line.includes(`${role} "${name}"`)) continue;
      const m = /[[ ]ref=(e\d+)\]/.exec(line);
      if (m) return m[1];
    }
    return null;
  },
  value(result) {
    const d = result?.structuredContent?.response?.data;
    if (d && 'result' in d) return d.result;
    try {
      return JSON.parse(text(result));
    } catch {
      return undefined;
    }
  },
};
