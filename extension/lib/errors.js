// Protocol errors and the mapping from chrome.* failure text to the error
// codes of PROTOCOL.md "Errors". Pure logic: no chrome.* here.

/** Codes the extension may put on the wire, with their retryable default. */
const RETRYABLE = Object.freeze({
  bad_request: false,
  unknown_method: false,
  message_too_large: false,
  timeout: true,
  cdp_error: false,
  restricted_page: false,
  tab_closed: false,
  detached: false,
  canceled_by_user: false,
  tab_unloaded: false,
  group_not_found: false,
  unavailable: false,
  internal: false,
});

export class ProtocolError extends Error {
  /**
   * @param {string} code a PROTOCOL.md error code
   * @param {string} message what happened and what to do next
   * @param {boolean} [retryable] defaults per code
   * @param {object} [extra] more fields for the wire form, e.g. {tab_id}
   */
  constructor(code, message, retryable, extra) {
    super(message);
    this.name = 'ProtocolError';
    this.code = code;
    this.retryable = retryable ?? RETRYABLE[code] ?? false;
    this.extra = extra;
  }

  /** The wire form: {code, message, retryable} and any extra fields. */
  toJSON() {
    return {
      ...this.extra,
      code: this.code,
      message: this.message,
      retryable: this.retryable,
    };
  }
}

export function badRequest(message) {
  return new ProtocolError('bad_request', message);
}

export function unknownMethod(method) {
  return new ProtocolError(
    'unknown_method',
    `the extension has no method "${method}"; check the daemon and extension versions match`,
  );
}

/** The user pressed "Cancel" on the debugging bar of tabId. */
export function canceledByUser(tabId) {
  return new ProtocolError(
    'canceled_by_user',
    `the user closed Gasoline's debugging bar on tab ${tabId}; ask the user ` +
      `before acting on this tab again`,
  );
}

/** tabId shows a page that restricted.js names (reason). */
export function restrictedPage(tabId, reason) {
  return new ProtocolError(
    'restricted_page',
    debugging(`it shows ${reason}`)(`tab ${tabId}`),
    undefined,
    { tab_id: tabId },
  );
}

const UNLOADED = {
  crashed: (tab) => `the page in ${tab} crashed`,
  frame: (tab) => `a frame or worker in ${tab} crashed (its session is gone)`,
  discarded: (tab) => `${tab} is discarded (Chrome unloaded it to save memory)`,
};

/**
 * tabId has no live page to debug. The wire form carries why
 * (crashed, frame, discarded) beside the words: callers branch on codes
 * and fields, never on messages.
 * @param {number|undefined} tabId
 * @param {'crashed'|'frame'|'discarded'} why
 */
export function tabUnloaded(tabId, why) {
  const tab = tabId === undefined ? 'the tab' : `tab ${tabId}`;
  return new ProtocolError(
    'tab_unloaded',
    `${UNLOADED[why](tab)}; it must be reloaded before other commands`,
    undefined,
    tabId === undefined ? { why } : { tab_id: tabId, why },
  );
}

/** tabs.create named a tab group that is gone (its last tab closed). */
export function groupNotFound(groupId) {
  return new ProtocolError(
    'group_not_found',
    `tab group ${groupId} does not exist (its last tab closed); ` +
      `create the tab without group_id and call tabs.group`,
  );
}

/** A target_closed detach ended a command on tabId. */
export function targetClosed(tabId) {
  return new ProtocolError(
    'detached',
    `tab ${tabId}'s debugging target closed while the command ran (it ` +
      `navigated to a page extensions cannot debug, crashed or was ` +
      `discarded); the command may not have run; the next command ` +
      `re-attaches once`,
  );
}

/** target_closed again right after the automatic re-attach. */
export function tabGoneTwice(tabId) {
  return new ProtocolError(
    'tab_closed',
    `tab ${tabId}'s page went away again right after the debugger ` +
      `re-attached (target_closed twice in one command); treat the tab as ` +
      `closed: open a new tab and retry`,
  );
}

/** The text of whatever a chrome.* call threw or reported in lastError. */
export function errorText(err) {
  if (typeof err === 'string') return err;
  if (err && typeof err.message === 'string') return err.message;
  return String(err);
}

// A refused tab's error carries its tab_id: the daemon adds the agent's
// advice (close_tab, or another tab: internal/tools/link.go) from the code
// and that field, never from these words.
const debugging = (why) => (tab) =>
  `Chrome will not let extensions debug ${tab}: ${why}`;

// Each entry: the pattern of Chrome's text, and the message (without
// Chrome's text, which is appended) given the match and "tab N".
const RESTRICTED = [
  {
    re: /Cannot access a chrome-extension:\/\/ URL of different extension/i,
    say: () => debugging("it shows another extension's page"),
  },
  {
    re: /Cannot access a ([a-z][\w-]*):\/\/ URL/i,
    say: (m) => debugging(`it shows a ${m[1].toLowerCase()}:// page`),
  },
  {
    re: /extensions gallery cannot be scripted/i,
    say: () => debugging('it shows the Chrome Web Store'),
  },
  {
    re: /Cannot attach to this target/i,
    say: () => debugging('it shows a browser, DevTools or extension page'),
  },
  {
    re: /Cannot access contents of (url|the page)/i,
    say: () => debugging('the extension has no access to its URL'),
  },
  {
    re: /Cannot (?:create|navigate to|open) .*?\b([a-z][\w-]*):\/\//i,
    opens: true,
    say: (m) => () =>
      `Chrome does not let extensions open ${m[1].toLowerCase()}:// pages; use a web page URL`,
  },
];

const TAB_CLOSED =
  /No tab with (given )?id|No target with given id|tab was closed|Tab not found/i;
const DETACHED =
  /Debugger is not attached|Detached while handling command|Target closed/i;

/**
 * Maps a chrome.* error to a ProtocolError.
 * @param {unknown} err what chrome.* threw (an Error, a string, a lastError)
 * @param {{tabId?: number}} [ctx]
 */
export function mapChromeError(err, ctx = {}) {
  if (err instanceof ProtocolError) return err;
  const text = errorText(err);
  const tab = ctx.tabId === undefined ? 'the tab' : `tab ${ctx.tabId}`;
  for (const { re, say, opens } of RESTRICTED) {
    const m = text.match(re);
    if (m) {
      const message = `${say(m)(tab)} (Chrome said: ${text})`;
      const extra =
        opens || ctx.tabId === undefined ? undefined : { tab_id: ctx.tabId };
      return new ProtocolError('restricted_page', message, undefined, extra);
    }
  }
  if (TAB_CLOSED.test(text)) {
    return new ProtocolError(
      'tab_closed',
      `${tab} does not exist or was closed; list tabs or open a new one`,
    );
  }
  if (/^\{.*"Target crashed"/.test(text) || text === 'Target crashed') {
    return tabUnloaded(ctx.tabId, 'crashed');
  }
  if (DETACHED.test(text)) {
    return new ProtocolError(
      'detached',
      `the debugger was detached from ${tab} (the user may have pressed ` +
        `"Cancel" on the debugging bar, or DevTools took over); ` +
        `the next command re-attaches`,
    );
  }
  if (
    /Invalid url pattern|Invalid value for argument|Error in invocation/i.test(
      text,
    )
  ) {
    return new ProtocolError(
      'bad_request',
      `Chrome rejected the params: ${text}`,
    );
  }
  return new ProtocolError('cdp_error', text);
}

/** Any thrown value as a ProtocolError; non-protocol errors become internal. */
export function asProtocolError(err, where) {
  if (err instanceof ProtocolError) return err;
  return new ProtocolError('internal', `${where}: ${errorText(err)}`);
}
