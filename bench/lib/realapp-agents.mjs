// The scripted agents of bench/realapp.mjs: the same plan for every
// server, each step through that server's own tools. An agent reads the
// page with a snapshot when the page changed, acts on refs it read there
// (by name when the snapshot gave none), follows the tabs the page opens,
// and counts its calls and the text it got back.
import fs from 'node:fs';
import path from 'node:path';
import { call, text } from './mcp.mjs';

// refOf finds the ref of the first snapshot line of role whose text holds
// name (any case): Gasoline's `role "name" … [eN]` (diff lines start with
// `+ ` or `~ `), Playwright's `- role "name" [ref=eN]`.
export function refOf(snap, role, name, within = '') {
  const want = name.toLowerCase();
  let loose = null;
  let lines = snap.split('\n');
  if (within) {
    const i = lines.findIndex((l) => {
      const t = l.trim().replace(/^[-+~]\s+/, '');
      return t === within || t.startsWith(`${within} `);
    });
    lines = i < 0 ? [] : lines.slice(i + 1);
  }
  for (const raw of lines) {
    const l = raw.trim().replace(/^[-+~]\s+/, '');
    if (!l.startsWith(`${role} `) && !l.startsWith(`${role}:`)) continue;
    const m = /\[(?:ref=)?(e\d+)\]/.exec(l);
    if (!m) continue;
    const quoted = /^\S+ "([^"]*)"/.exec(l)?.[1]?.toLowerCase() ?? '';
    if (quoted === want) return m[1];
    if (!loose && l.toLowerCase().includes(want)) loose = m[1];
  }
  return loose;
}

// approver plays an instant user: it approves every pending approval of
// the chain through the daemon's approvals API (with the approver
// credential, as the panel would) and counts the prompts.
export function approver(chain) {
  const token = fs
    .readFileSync(
      path.join(chain.home, 'credentials', 'approver.token'),
      'utf8',
    )
    .trim();
  const api = `http://127.0.0.1:${chain.port}/approvals`;
  const headers = { authorization: `Bearer ${token}` };
  const seen = new Set();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const list = await (await fetch(api, { headers })).json();
        for (const p of list.pending ?? []) {
          if (seen.has(p.request_id)) continue;
          seen.add(p.request_id);
          await fetch(`${api}/${p.request_id}/approve`, {
            method: 'POST',
            headers,
          });
        }
      } catch {
        // the daemon is starting or gone
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    count: () => seen.size,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

// base is what both agents share: counting, and the page text read so far
// per tab (refs stay valid until the page changes).
function base(client) {
  const a = {
    calls: 0,
    bytes: 0,
    last: '',
    tab: 0,
    seen: new Map(), // tab → page text read since the last full look
    async call(name, args) {
      const r = await call(client, name, args);
      a.calls++;
      a.last = text(r.result);
      a.bytes += Buffer.byteLength(a.last);
      if (process.env.REALAPP_DEBUG)
        console.error(
          `>>> ${name} ${JSON.stringify(args)}\n${a.last.slice(0, 3000)}\n`,
        );
      return r;
    },
    must(r, what) {
      if (r.result.isError) throw new Error(`${what}: ${a.last.slice(0, 300)}`);
      return r;
    },
    remember(t, fresh) {
      a.seen.set(a.tab, (fresh ? '' : (a.seen.get(a.tab) ?? '')) + '\n' + t);
      return t;
    },
    ref(role, name) {
      return refOf(a.seen.get(a.tab) ?? '', role, name);
    },
    // lookFor reads the page until a control that just appeared (a
    // dialog's field) is in what was read last: a dialog that fades in
    // may take another look.
    async lookFor(role, name, within = '', tries = 3) {
      for (let i = 0; i < tries; i++) {
        const ref = refOf(await a.look(), role, name, within);
        if (ref) return ref;
      }
      throw new Error(`no ${role} "${name}" appeared`);
    },
  };
  return a;
}

function gasoline(client) {
  const a = base(client);
  const fresh = new Set(); // tabs whose next look is a full snapshot
  const act = async (what, args, tab) => {
    if (tab) {
      args.tab_id = tab;
      a.tab = tab;
    }
    return a.must(await a.call('interact', { what, ...args }), what);
  };
  // target is the ref read for role and name; a control the page had not
  // drawn when it was read is waited for by its text, then used by it.
  const target = async (role, name) => {
    const ref = a.ref(role, name);
    if (ref) return { ref };
    if (!name) return { ref: await a.lookFor(role, name) };
    await a.waitText(name);
    return { selector: `text=${name}` };
  };
  Object.assign(a, {
    async open(url) {
      const r = await act('navigate', { url });
      a.tab = r.result.structuredContent?.tab_id;
      fresh.add(a.tab);
      return a.tab;
    },
    async look() {
      const full = fresh.delete(a.tab);
      const r = await a.call('observe', {
        what: 'snapshot',
        ...(full ? {} : { diff: true }),
      });
      a.must(r, 'snapshot');
      return a.remember(a.last, !/· diff since snapshot \d+/.test(a.last)); // a diff adds to what was read
    },
    async click(role, name, tab) {
      if (tab && tab !== a.tab) a.tab = tab;
      return act('click', await target(role, name), tab);
    },
    async clickOpens(role, name) {
      await a.click(role, name);
      const m = /opened tab (\d+)/.exec(a.last);
      if (!m) throw new Error(`no tab opened: ${a.last.slice(0, 200)}`);
      a.tab = Number(m[1]); // the session's current tab now
      fresh.add(a.tab);
      return a.tab;
    },
    type: async (role, name, t, clear = false) =>
      act('type', { ...(await target(role, name)), text: t, clear }),
    typeNew: async (role, name, t, within) =>
      act('type', {
        ref: await a.lookFor(role, name, within),
        text: t,
        clear: true,
      }),
    save: () => a.click('button', 'Save and Checkpoint'), // an icon button, named by its title
    press: (keys) => act('key_press', { keys }),
    async waitText(t) {
      const r = await a.call('interact', {
        what: 'wait_for',
        selector: `text=${t}`,
        timeout_ms: 15000,
      });
      return !r.result.isError;
    },
  });
  return a;
}

function playwright(client) {
  const a = base(client);
  let tabs = 1;
  const select = async (tab, look = true) => {
    a.must(
      await a.call('browser_tabs', { action: 'select', index: tab }),
      'select tab',
    );
    a.tab = tab;
    if (look) await a.look(); // refs are per snapshot
  };
  // ref is the ref read for role and name; a control the page had not
  // drawn when it was read is waited for by its text, and read again.
  const ref = async (role, name) => {
    let r = a.ref(role, name);
    if (!r && !name) r = await a.lookFor(role, name);
    if (!r) {
      await a.waitText(name);
      await a.look();
      r = a.ref(role, name);
    }
    if (!r) throw new Error(`no ${role} "${name}" in what was read`);
    return r;
  };
  Object.assign(a, {
    async open(url) {
      a.must(await a.call('browser_navigate', { url }), 'navigate');
      a.tab = 0;
      return 0;
    },
    async look() {
      a.must(await a.call('browser_snapshot', {}), 'snapshot');
      return a.remember(a.last, true);
    },
    async click(role, name, tab) {
      if (tab !== undefined && tab !== a.tab) await select(tab);
      return a.must(
        await a.call('browser_click', {
          target: await ref(role, name),
          element: name,
        }),
        'click',
      );
    },
    async clickOpens(role, name) {
      await a.click(role, name);
      const r = a.must(
        await a.call('browser_tabs', { action: 'list' }),
        'tabs',
      );
      const n = (text(r.result).match(/^- \d+:/gm) ?? []).length;
      if (n <= tabs) throw new Error(`no tab opened: ${a.last.slice(0, 200)}`);
      tabs = n;
      const cur = /^- (\d+): \(current\)/m.exec(text(r.result));
      if (Number(cur?.[1]) !== n - 1) await select(n - 1, false);
      else a.tab = n - 1;
      return a.tab;
    },
    type: async (role, name, t) =>
      a.must(
        await a.call('browser_type', {
          target: await ref(role, name),
          element: name || role,
          text: t,
        }),
        'type',
      ),
    typeNew: async (role, name, t, within) =>
      a.must(
        await a.call('browser_type', {
          target: await a.lookFor(role, name, within),
          element: name || role,
          text: t,
        }),
        'type',
      ),
    // Its snapshot names the toolbar's icon buttons "": the keyboard saves.
    save: () => a.press('Control+s'),
    press: (key) =>
      a.call('browser_press_key', { key }).then((r) => a.must(r, 'press')),
    async waitText(t) {
      const r = await a.call('browser_wait_for', { text: t });
      return !r.result.isError;
    },
  });
  return a;
}

export const drivers = { gasoline, playwright };
