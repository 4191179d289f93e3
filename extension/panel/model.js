// The agent panel's state: what the worker and the daemon told it, and the
// state machine idle → connecting → ready → needs_approval → degraded →
// error derived from it. Pure logic: no DOM, no chrome.*, time passed in.
// The conversation with the daemon's agent is its own pure reducer
// (conversation.js); the model holds its current state.

import { emptyConversation, reduceConversation } from './conversation.js';

/** How long the link may be down before the panel says it is broken. */
export const ERROR_AFTER_MS = 10_000;
export const TIMELINE_MAX = 50;
const GONE_MAX = 500;

export const DOCTOR_FIX =
  'To find the cause, run this in a terminal. It checks the daemon, the ' +
  'native host and the extension, and says how to fix each:';
export const DOCTOR_COMMAND = 'gasoline-host doctor';

/** Events that end a pending request. */
const ENDS_REQUEST = new Set(['approved', 'denied', 'expired']);

export class PanelModel {
  constructor() {
    this.port = 'idle'; // the port to the worker: idle | connecting | open | closed
    this.portDownSince = null;
    this.link = null; // the worker's link.state push
    this.everReady = false;
    this.status = null; // the daemon's panel.status answer
    this.statusError = null;
    this.pending = new Map(); // request_id → request
    this.heard = new Map(); // request_id → seq of its requested event
    this.seq = 0; // counts requested events
    this.gone = new Set(); // request ids decided, expired or denied
    this.busy = new Map(); // request_id → decision being sent
    this.errors = new Map(); // request_id → message shown under the prompt
    this.timeline = []; // newest first
    this.grants = []; // live grants, from approvals.list
    this.plans = []; // live plans, from approvals.list
    this.revoking = new Set(); // grant and plan ids being revoked
    this.grantError = ''; // why the last revoke failed
    this.conv = emptyConversation(); // the chat with the daemon's agent
    this.chat = 'unknown'; // unknown | available | unavailable (old daemon)
    this.providers = null; // the panel.providers answer
    this.providersError = null;
    this.provider = null; // the user's choice; null: the daemon's default
    this.exported = null; // {busy} | {name, size, url} | {error}
  }

  /** Applies a conversation action (see reduceConversation). */
  dispatch(action) {
    this.conv = reduceConversation(this.conv, action);
  }

  /** The panel.providers answer. */
  setProviders(res) {
    const list = Array.isArray(res?.providers)
      ? res.providers.filter((p) => typeof p?.name === 'string' && p.name)
      : [];
    this.providers = {
      list,
      default: typeof res?.default === 'string' ? res.default : '',
    };
    this.providersError = null;
    if (this.provider && !list.some((p) => p.name === this.provider)) {
      this.provider = null;
    }
  }

  providersFailed(message) {
    this.providersError = message;
  }

  /** Whether the user can send a chat message now. */
  canSend() {
    return (
      this.port === 'open' &&
      this.link?.state === 'ready' &&
      this.chat !== 'unavailable' &&
      this.conv.running === null
    );
  }

  /** The provider a message goes to: the chosen one, else the default. */
  selectedProvider() {
    const list = this.providers?.list ?? [];
    const name = this.provider ?? this.providers?.default;
    return list.find((p) => p.name === name) ?? list[0] ?? null;
  }

  portConnecting(now) {
    if (this.port === 'idle' || this.port === 'open') this.portDownSince = now;
    this.port = 'connecting';
  }

  portOpened() {
    this.port = 'open';
    this.portDownSince = null;
  }

  portClosed(now) {
    if (this.port !== 'closed' && this.portDownSince == null) {
      this.portDownSince = now;
    }
    this.port = 'closed';
    this.link = null;
    this.resetPending(); // undecidable until the worker is back
  }

  /**
   * The worker's link state. Returns true when the link just became ready
   * (the daemon may be a new one: re-fetch everything).
   */
  linkChanged(link) {
    const ready = link?.state === 'ready';
    const became =
      ready && (this.link?.state !== 'ready' || this.link.epoch !== link.epoch);
    this.link = link ?? null;
    if (became) this.everReady = true;
    if (!ready) {
      this.resetPending(); // a restarted daemon forgets them
      this.grants = [];
      this.plans = [];
      this.status = null; // stale until read again
    }
    return became;
  }

  /** Forgets the pending requests (before re-fetching them). */
  resetPending() {
    this.pending.clear();
    this.heard.clear();
    this.busy.clear();
    this.errors.clear();
  }

  /** A mark to pass to setPending with the list fetched after it. */
  mark() {
    return this.seq;
  }

  /**
   * The approvals.list answer fetched after mark: it replaces the pending
   * requests, except those heard of since the mark (newer than the list)
   * and those decided meanwhile.
   */
  setPending(list, mark = this.seq) {
    const next = new Map();
    for (const req of Array.isArray(list) ? list : []) {
      const id = req?.request_id;
      if (id && !this.gone.has(id)) next.set(id, req);
    }
    for (const [id, req] of this.pending) {
      if ((this.heard.get(id) ?? 0) > mark) next.set(id, req);
    }
    this.pending = next;
    for (const m of [this.heard, this.busy, this.errors]) {
      for (const id of m.keys()) if (!next.has(id)) m.delete(id);
    }
  }

  /** The grants and plans of an approvals.list answer. */
  setGrants(list, plans) {
    this.grants = (Array.isArray(list) ? list : []).filter(
      (g) => typeof g?.grant_id === 'string' && g.grant_id,
    );
    this.plans = (Array.isArray(plans) ? plans : []).filter(
      (p) => typeof p?.plan_id === 'string' && p.plan_id,
    );
    const live = new Set([
      ...this.grants.map((g) => g.grant_id),
      ...this.plans.map((p) => p.plan_id),
    ]);
    for (const id of this.revoking) if (!live.has(id)) this.revoking.delete(id);
  }

  setStatus(status) {
    this.status = status ?? null;
    this.statusError = null;
  }

  statusFailed(message) {
    this.statusError = message;
  }

  /** An approval.event from the daemon. */
  approvalEvent(ev) {
    const req = ev?.request;
    const id = req?.request_id;
    if (!ev || typeof ev.type !== 'string' || !id) return;
    if (ev.type === 'requested' && !this.gone.has(id)) {
      this.pending.set(id, req);
      this.heard.set(id, ++this.seq);
    } else if (ENDS_REQUEST.has(ev.type)) {
      this.forget(id);
    }
    this.timeline.unshift({
      type: ev.type,
      time: ev.time,
      action: req.action,
      target: req.target,
      scope: req.scope,
      decision: ev.decision,
      reason: ev.reason,
      request_id: id,
    });
    this.timeline.length = Math.min(this.timeline.length, TIMELINE_MAX);
  }

  /** The request is no longer pending: decided, denied or expired. */
  forget(id) {
    this.pending.delete(id);
    this.heard.delete(id);
    this.busy.delete(id);
    this.errors.delete(id);
    this.gone.add(id);
    if (this.gone.size > GONE_MAX) {
      this.gone.delete(this.gone.values().next().value);
    }
  }

  deciding(id, decision) {
    this.busy.set(id, decision);
    this.errors.delete(id);
  }

  decideFailed(id, message) {
    this.busy.delete(id);
    if (this.pending.has(id)) this.errors.set(id, message);
  }

  /** MCP sessions the daemon serves, or null before it said. */
  sessions() {
    const t = this.status?.health?.transport_status;
    if (!t) return null;
    return (Number(t.stdio) || 0) + (Number(t.http) || 0);
  }

  /**
   * The panel's state now.
   * @returns {{state: string, detail: string, fix?: string,
   *   command?: string}} fix says what to do; command is one to run
   */
  phase(now) {
    if (this.port === 'idle') {
      return { state: 'idle', detail: 'Starting the panel…' };
    }
    if (this.port !== 'open') return this.portPhase(now);
    const link = this.link;
    if (!link) {
      return {
        state: 'connecting',
        detail: 'Waiting for the extension’s background worker…',
      };
    }
    if (link.state !== 'ready') return this.linkPhase(link, now);
    const n = this.pending.size;
    if (n > 0) {
      return {
        state: 'needs_approval',
        detail:
          n === 1
            ? 'The agent is waiting for your decision below.'
            : `${n} requests are waiting for your decision below.`,
      };
    }
    return this.daemonPhase();
  }

  portPhase(now) {
    if (now - this.portDownSince > ERROR_AFTER_MS) {
      return {
        state: 'error',
        detail:
          'The Gasoline extension’s background worker is not answering, so ' +
          'the panel cannot show or decide approvals.',
        fix: 'Reload Gasoline in chrome://extensions, then reopen this panel.',
      };
    }
    return {
      state: this.everReady ? 'degraded' : 'connecting',
      detail: 'Connecting to the extension’s background worker…',
    };
  }

  linkPhase(link, now) {
    if (link.state === 'stopped') return this.stoppedPhase(link);
    const reason = String(link.reason ?? '').replace(/\.$/, '');
    const why = reason ? ` (${reason})` : '';
    const since = Number.isFinite(link.down_since) ? link.down_since : now;
    if (now - since > ERROR_AFTER_MS) {
      return {
        state: 'error',
        detail:
          link.state === 'daemon_unavailable'
            ? `The Gasoline daemon is not running${why}. Agent requests ` +
              'cannot reach this browser.'
            : `The extension cannot reach the Gasoline native host${why}.`,
        fix: DOCTOR_FIX,
        command: DOCTOR_COMMAND,
      };
    }
    if (!this.everReady && link.state !== 'daemon_unavailable') {
      return { state: 'connecting', detail: 'Connecting to Gasoline…' };
    }
    return {
      state: 'degraded',
      detail: `Reconnecting to the Gasoline daemon${why}…`,
    };
  }

  /** Stopped on purpose: say so, and offer Start (never a silent restart). */
  stoppedPhase(link) {
    let why = String(link.reason ?? '').trim();
    if (!why)
      why = 'It was stopped on purpose and stays stopped until started.';
    if (!/[.!?]$/.test(why)) why += '.';
    return {
      state: 'stopped',
      detail: 'Gasoline is stopped',
      fix:
        this.startError || `${why} Agents cannot reach this browser meanwhile.`,
      start: true,
      starting: this.starting === true,
    };
  }

  daemonPhase() {
    if (!this.status) {
      return {
        state: 'connecting',
        detail: this.statusError
          ? `Reading the daemon’s status failed: ${this.statusError}`
          : 'Reading the daemon’s status…',
      };
    }
    if (this.status.policy_error) {
      return {
        state: 'degraded',
        detail:
          'The policy file is broken, so every change is refused until it ' +
          `is fixed: ${this.status.policy_error}`,
        fix:
          'Fix policy.json, or delete it to go back to the built-in ' +
          'default (every change asks you first).',
      };
    }
    const redactionError = this.status.redaction?.error;
    if (typeof redactionError === 'string' && redactionError) {
      return {
        state: 'degraded',
        detail:
          'The redaction policy is broken, so Gasoline blocks what it ' +
          `would show the agent: ${redactionError}`,
        fix:
          'Fix redaction.json, or delete it to go back to the built-in ' +
          'policy.',
      };
    }
    const provider = this.selectedProvider();
    if (provider && provider.healthy === false) {
      const why = provider.error ? ` (${provider.error})` : '';
      return {
        state: 'degraded',
        detail:
          `The model provider “${provider.name}” is not available${why}. ` +
          'Chat answers fail until it is back; approvals still work.',
        fix:
          'Choose another provider under Conversation, or check its ' +
          'settings in the daemon’s config file.',
      };
    }
    if (this.sessions() === 0) {
      const chat = provider?.healthy
        ? ' You can also chat with the panel’s agent below.'
        : '';
      return {
        state: 'degraded',
        detail:
          'Gasoline is running, but no agent is connected. Start your AI ' +
          `client (its MCP config runs “gasoline-host --mcp”).${chat}`,
      };
    }
    return {
      state: 'ready',
      detail: 'Your agent is connected. Nothing waits for your approval.',
    };
  }
}
