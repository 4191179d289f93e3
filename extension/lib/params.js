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
