// View models: what the panel shows, as plain data computed from the
// PanelModel. Pure functions, tested without a DOM; dom.js only copies
// these strings into elements with textContent.

export const BADGE_LABELS = Object.freeze({
  idle: 'Idle',
  connecting: 'Connecting',
  ready: 'Ready',
  needs_approval: 'Needs approval',
  degraded: 'Degraded',
  stopped: 'Stopped',
  error: 'Error',
});

const CLASSES = Object.freeze({
  mutating: 'mutating (makes a change)',
  sensitive: 'sensitive (can reach your data or files)',
});

export const DEFAULT_SITE_MINUTES = 15;
export const MAX_SITE_MINUTES = 480;
export const NONE = '—';

/** The header badge and the banner under it. */
export function badgeView(phase) {
  return {
    state: phase.state,
    label: BADGE_LABELS[phase.state] ?? phase.state,
    detail: phase.detail ?? '',
    fix: phase.fix ?? '',
    command: phase.command ?? '',
    start: phase.start === true, // offer the Start button
    starting: phase.starting === true,
  };
}

/** "4:59", "1:02:03", or "expired". */
export function timeLeft(expiresAt, now) {
  const end = Date.parse(expiresAt);
  if (!Number.isFinite(end)) return NONE;
  const s = Math.floor((end - now) / 1000);
  if (s <= 0) return 'expired';
  const pad = (n) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** "14:03:27" in the user's time zone, or "—". */
export function clock(time) {
  const t = Date.parse(time);
  if (!Number.isFinite(t)) return NONE;
  const d = new Date(t);
  const pad = (n) => String(n).padStart(2, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function tabText(scope) {
  const id = scope?.tab_id;
  return Number.isInteger(id) && id > 0 ? `tab:${id}` : 'not tied to a tab';
}

// The daemon names a session by its client and a handle (s_…) that
// resumes nothing; the panel never receives a session's id.
function whoText(req) {
  const client = req.client_name ?? req.client;
  const session = req.session ? `session ${req.session}` : NONE;
  const named =
    typeof client === 'string' && client ? `${client} (${session})` : session;
  return req.remote ? `${named}, a remote agent` : named;
}

/** Who the prompt says asks: a remote agent by its name. */
function askerText(req) {
  return typeof req.remote === 'string' && req.remote
    ? `${req.remote} asks to:`
    : 'Your agent asks to:';
}

const str = (v) => (typeof v === 'string' ? v : '');

/** One approval prompt. */
export function promptView(req, model, now) {
  const busy = model.busy.get(req.request_id) ?? '';
  const left = timeLeft(req.expires_at, now);
  return {
    id: req.request_id,
    action: req.action ?? NONE,
    // The mode's own words come from the daemon (internal/gate/words.go,
    // the one place they live); a request without them names its mode.
    describe: str(req.describe) || `Call ${req.action ?? 'an unnamed mode'}`,
    // The target, unless it only repeats the action.
    target: req.target && req.target !== req.action ? req.target : '',
    // What to weigh: whether it leaves the site, what data it carries,
    // what a policy change lets run.
    notes: Array.isArray(req.notes) ? req.notes.map(String) : [],
    // The whole script, address or policy: shown whole, scrollable.
    detail: str(req.detail),
    detailLabel: str(req.detail_label) || 'In full',
    // The tab as the browser names it, never as the page's script does.
    page: req.page ? `“${str(req.page.title)}” — ${str(req.page.url)}` : '',
    // The session read page text that looked like instructions to an AI.
    warning: typeof req.page_warning === 'string' ? req.page_warning : '',
    kind: CLASSES[req.class] ?? req.class ?? NONE,
    sensitive: req.class === 'sensitive',
    tab: tabText(req.scope),
    origin: req.scope?.origin || 'no page (browser-wide)',
    who: whoText(req),
    asks: askerText(req),
    reason: req.reason ?? '',
    timeLeft: left,
    expired: left === 'expired',
    siteGrantable: req.site_grantable === true,
    // A batch: every step the user approves, in order, in words.
    steps: Array.isArray(req.steps) ? req.steps.map(String) : [],
    busy,
    busyText: busy ? (busy === 'deny' ? 'Denying…' : 'Approving…') : '',
    error: model.errors.get(req.request_id) ?? '',
  };
}

/** The live site grants, soonest to end first. */
export function grantsView(model, now) {
  return [...model.grants]
    .sort((a, b) => String(a.expires_at).localeCompare(String(b.expires_at)))
    .map((g) => ({
      id: g.grant_id,
      origin: g.origin || NONE,
      kind: CLASSES[g.class] ?? g.class ?? NONE,
      who: whoText(g),
      timeLeft: timeLeft(g.expires_at, now),
      busy: model.revoking.has(g.grant_id),
    }));
}

/** What the approvals card says when no prompt is shown. */
export function emptyText(model) {
  if (model.port === 'open' && model.link?.state === 'ready') {
    return (
      'Nothing is waiting for you. The agent asks here before it changes ' +
      'anything in this browser.'
    );
  }
  return (
    'Requests cannot reach this panel while Gasoline is disconnected. ' +
    'Nothing the agent asks for meanwhile happens without your approval.'
  );
}

/** The pending prompts, oldest (soonest to expire) first. */
export function promptsView(model, now) {
  return [...model.pending.values()]
    .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)))
    .map((req) => promptView(req, model, now));
}

/**
 * The minutes typed for "approve for this site", or an error message.
 * @returns {{minutes?: number, error?: string}}
 */
export function parseMinutes(text) {
  const n = Number(String(text).trim());
  if (!Number.isInteger(n) || n < 1 || n > MAX_SITE_MINUTES) {
    return {
      error: `Minutes must be a whole number from 1 to ${MAX_SITE_MINUTES}.`,
    };
  }
  return { minutes: n };
}

function linkText(model, now) {
  if (model.port !== 'open') return 'background worker not connected';
  const link = model.link;
  switch (link?.state) {
    case 'ready':
      return 'connected';
    case 'daemon_unavailable':
      return 'native host up, daemon unreachable';
    case 'stopped':
      return 'stopped on purpose';
    case 'closed': {
      const s = Math.ceil((link.retry_at - now) / 1000);
      return Number.isFinite(s)
        ? `disconnected; ${s > 0 ? `retrying in ${s} s` : 'retrying…'}`
        : 'disconnected';
    }
    default:
      return 'connecting';
  }
}

export function counter(value) {
  return Number.isFinite(value) ? String(value) : NONE;
}

/** A redaction policy version: "gasoline-redact/1" (or a number). */
function versionText(value) {
  if (typeof value === 'string' && value) return value;
  return counter(value);
}

/** The status area: [label, value] rows. */
export function statusView(model, now) {
  const h = model.status?.health;
  const daemon = model.link?.state === 'ready' ? model.link.daemon : null;
  const version = h?.version ?? daemon?.version;
  const pid = h?.pid ?? daemon?.pid;
  const t = h?.transport_status;
  // The redaction engine reports {policy_version, redacted_count,
  // blocked_count} under panel.status "redaction"; "—" until it does.
  const red = model.status?.redaction ?? {};
  const v = model.status?.policy_version;
  const policy = model.status?.policy_error
    ? `broken: ${model.status.policy_error}`
    : v === 0
      ? 'built-in default (no policy.json)'
      : Number.isFinite(v)
        ? `version ${v}`
        : NONE;
  return [
    ['Daemon', version ? `${version} (pid ${pid ?? NONE})` : NONE],
    ['Extension link', linkText(model, now)],
    [
      'Agent sessions',
      t ? `${counter(t.stdio)} stdio · ${counter(t.http)} http` : NONE,
    ],
    ['Approval policy', policy],
    [
      'Redaction policy',
      red.error ? `broken: ${red.error}` : versionText(red.policy_version),
    ],
    ['Values redacted', counter(red.redacted_count)],
    ['Outputs blocked', counter(red.blocked_count)],
  ];
}

const EVENT_LABELS = Object.freeze({
  requested: 'Asked',
  approved: 'Approved',
  denied: 'Denied',
  expired: 'Expired',
  consumed: 'Ran',
  rejected: 'Rejected',
});

function decisionText(decision) {
  if (decision === 'once') return 'once';
  const m = /^site:(\d+)m$/.exec(decision ?? '');
  return m ? `for this site, ${m[1]} min` : (decision ?? '');
}

/** The activity timeline, newest first. */
export function timelineView(model) {
  return model.timeline.map((e) => {
    const extra =
      e.type === 'approved'
        ? decisionText(e.decision)
        : e.type === 'denied' || e.type === 'rejected' || e.type === 'expired'
          ? (e.reason ?? '')
          : '';
    const where = e.scope?.origin ? ` on ${e.scope.origin}` : '';
    return {
      type: e.type,
      time: clock(e.time),
      label: EVENT_LABELS[e.type] ?? e.type,
      text: `${e.action ?? NONE}${where}${extra ? ` — ${extra}` : ''}`,
    };
  });
}
