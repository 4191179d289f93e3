// Validation of request params; failures are bad_request ProtocolErrors.

import { badRequest } from './errors.js';
import { isObject } from './message.js';

export function tabId(params) {
  const v = params.tab_id;
  if (!Number.isSafeInteger(v) || v < 0) {
    throw badRequest('tab_id must be a tab id (a non-negative integer)');
  }
  return v;
}

export function string(params, name, { optional = false } = {}) {
  const v = params[name];
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || v === '') {
    throw badRequest(`${name} must be a non-empty string`);
  }
  return v;
}

export function boolean(params, name, fallback) {
  const v = params[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw badRequest(`${name} must be true or false`);
  return v;
}

export function object(params, name) {
  const v = params[name];
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw badRequest(`${name} must be an object`);
  return v;
}

/** A match pattern or a list of them, as chrome.tabs.query takes. */
export function urlPatterns(params) {
  const v = params.url;
  if (v === undefined) return undefined;
  const ok =
    typeof v === 'string' ||
    (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  if (!ok) throw badRequest('url must be a match pattern or a list of them');
  return v;
}

/** An integer param within [min, max]; undefined when optional and absent. */
export function integer(params, name, { optional = false, min, max } = {}) {
  const v = params[name];
  if (v === undefined && optional) return undefined;
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max}`);
  }
  return v;
}

/** A non-empty list of tab ids under `name`. */
export function tabIds(params, name = 'tab_ids') {
  const v = params[name];
  const ok =
    Array.isArray(v) &&
    v.length > 0 &&
    v.length <= 1000 &&
    v.every((id) => Number.isSafeInteger(id) && id >= 0);
  if (!ok) throw badRequest(`${name} must be a non-empty list of tab ids`);
  return v;
}

/** One of choices, or undefined when absent. */
export function oneOf(params, name, choices) {
  const v = params[name];
  if (v === undefined) return undefined;
  if (!choices.includes(v)) {
    throw badRequest(`${name} must be one of ${choices.join(', ')}`);
  }
  return v;
}

const STEP_FLAGS = [
  'always',
  'stop_on_exception',
  'overlap',
  'background',
  'ahead',
];

/**
 * cdp.sequence's steps: 1 to 16 CDP commands, each {method, params?,
 * session_id?} and its flags; the background steps, if any, come last.
 */
export function steps(params) {
  const v = params.steps;
  if (!Array.isArray(v) || v.length === 0 || v.length > 16) {
    throw badRequest('steps must be a list of 1 to 16 CDP commands');
  }
  let background = false;
  for (const s of v) {
    if (!isObject(s)) throw badRequest('each step must be an object');
    string(s, 'method');
    object(s, 'params');
    string(s, 'session_id', { optional: true });
    for (const flag of STEP_FLAGS) boolean(s, flag, false);
    if (background && s.background !== true) {
      throw badRequest(
        'background steps must come last (after every other step)',
      );
    }
    if (s.background === true && s.ahead === true) {
      throw badRequest('a background step has no result to send ahead');
    }
    background = s.background === true;
  }
  return v;
}
