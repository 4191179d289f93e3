// Gasoline-only measurements: the approval round trips and the memory of
// its processes at steady state.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { text } from './mcp.mjs';
import { repeat } from './ops.mjs';
import { VerifyError, check, failed, na, percentile } from './stats.mjs';
import { daemonPid, nativeHostPids, rssKiB } from './gasoline.mjs';

const fmt = (ms) => `${ms.toFixed(1)} ms`;

function ok(r, what) {
  if (r.result.isError) {
    throw new VerifyError(
      `${what}: ${text(r.result).replace(/\s+/g, ' ').slice(0, 160)}`,
    );
  }
}

// policyApproved: a gated call the local-dev policy approves (a batch of
// one read on the 127.0.0.1 tab) against the same read ungated.
export async function policyApproved(s, ctx, served) {
  const need = ['interact.navigate', 'interact.batch', 'interact.get_value'];
  const missing = need.filter((k) => !served.has(k));
  if (missing.length) return na(`not served: ${missing.join(', ')}`);
  const read = { what: 'get_value', selector: '#name' };
  const url = `${ctx.origin}/pages/form.html?approval`;
  const nav = await s.call('interact', { what: 'navigate', url });
  if (nav.result.isError)
    return failed(`setup: navigate: ${text(nav.result).slice(0, 160)}`);
  const base = [];
  const res = await repeat(ctx.n, ctx.warm, async (i) => {
    const b = await s.call('interact', read);
    ok(b, 'get_value');
    if (i >= ctx.warm) base.push(b.ms);
    const r = await s.call('interact', { what: 'batch', steps: [read] });
    ok(r, 'batch (policy-approved)');
    return r;
  });
  if (res.status === 'ok') {
    const d = res.p50 - percentile(base, 50);
    res.note = `batch[get_value] vs get_value ungated: Δp50 ${fmt(d)}`;
  }
  return res;
}

// userRoundTrip: a gated call no policy rule covers (configure policy set,
// which has no page origin), approved by the harness through the daemon's
// approvals API the moment it is pending — the round trip with an instant
// user. Baseline: the same mode's ungated read (op get).
export async function userRoundTrip(s, ctx, chain, served) {
  if (!served.has('configure.policy'))
    return na('not served: configure.policy');
  // The harness plays the user: it decides with the approver credential
  // (the agent's would be refused, docs/SECURITY.md).
  const token = fs
    .readFileSync(
      path.join(chain.home, 'credentials', 'approver.token'),
      'utf8',
    )
    .trim();
  const api = `http://127.0.0.1:${chain.port}/approvals`;
  const headers = { authorization: `Bearer ${token}` };
  const got = await s.call('configure', { what: 'policy', op: 'get' });
  if (got.result.isError)
    return failed(`setup: policy get: ${text(got.result).slice(0, 160)}`);
  const doc = got.result.structuredContent?.policy;
  const base = [];
  const res = await repeat(ctx.n, ctx.warm, async (i) => {
    const b = await s.call('configure', { what: 'policy', op: 'get' });
    ok(b, 'policy get');
    if (i >= ctx.warm) base.push(b.ms);
    const t0 = performance.now();
    const pending = s.call('configure', {
      what: 'policy',
      op: 'set',
      rules: doc,
    });
    let done = false;
    pending.then(() => (done = true));
    let approved = false;
    while (!approved && !done) {
      const list = await (await fetch(api, { headers })).json();
      const req = list.pending?.find((p) => p.action === 'configure.policy');
      if (req) {
        const a = await fetch(`${api}/${req.request_id}/approve`, {
          method: 'POST',
          headers,
        });
        check(a.ok, `approve ${req.request_id}: HTTP ${a.status}`);
        approved = true;
      } else if (performance.now() - t0 > 10000) {
        throw new VerifyError('no pending approval within 10 s');
      }
    }
    const r = await pending;
    ok(r, 'policy set after approval');
    check(approved, 'policy set completed without asking for approval');
    return { ms: performance.now() - t0, bytes: r.bytes };
  });
  if (res.status === 'ok') {
    res.note = `ungated policy get p50 ${fmt(percentile(base, 50))}`;
  }
  return res;
}

// memory reads VmRSS of the daemon, the native host(s) and the stdio relay.
export function memory(chain, relayPid) {
  const hosts = nativeHostPids(chain.host);
  return {
    daemon: rssKiB(daemonPid(chain.home)),
    host: hosts.map(rssKiB).reduce((a, b) => a + (b ?? 0), 0) || null,
    hostCount: hosts.length,
    relay: rssKiB(relayPid),
  };
}
