// Classification of link messages (PROTOCOL.md "Messages"). Pure logic.

/** @returns {boolean} whether v is a non-null, non-array object. */
export function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v) {
  return Number.isSafeInteger(v) && v >= 1;
}

/**
 * Classifies one decoded message.
 * @returns {'request'|'reply'|'event'|'chunk'|'bad_request'|'invalid'}
 *   'bad_request' is a message that carries a usable id but is otherwise
 *   malformed, so a bad_request reply can be sent; 'invalid' cannot be
 *   answered and is only logged.
 */
export function classify(msg) {
  if (!isObject(msg)) return 'invalid';
  if ('chunk' in msg) return 'chunk';
  const hasId = 'id' in msg;
  if (hasId && !isId(msg.id)) return 'invalid';
  if (hasId && 'method' in msg) {
    if (typeof msg.method !== 'string' || msg.method === '') {
      return 'bad_request';
    }
    if ('params' in msg && msg.params != null && !isObject(msg.params)) {
      return 'bad_request';
    }
    return 'request';
  }
  if (hasId) {
    const hasResult = 'result' in msg;
    const hasError = 'error' in msg;
    return hasResult !== hasError ? 'reply' : 'invalid';
  }
  if (typeof msg.method === 'string' && msg.method !== '') return 'event';
  return 'invalid';
}
