// Percentiles (nearest rank) and the shapes a measured op is reported in.

export function percentile(values, p) {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(
    s.length - 1,
    Math.max(0, Math.ceil((p / 100) * s.length) - 1),
  );
  return s[i];
}

// ok summarises samples: ms[], bytes[] and text[] (the answers' text
// content in bytes; bytes and text may be empty).
export function ok(ms, bytes = [], note, text = []) {
  return {
    status: 'ok',
    n: ms.length,
    p50: percentile(ms, 50),
    p95: percentile(ms, 95),
    bytes: bytes.length ? percentile(bytes, 50) : null,
    text: text.length ? percentile(text, 50) : null,
    note,
  };
}

export const na = (why) => ({ status: 'na', why });
export const failed = (why) => ({ status: 'failed', why });

// VerifyError marks a failed verification (never a timing).
export class VerifyError extends Error {}

export function check(cond, why) {
  if (!cond) throw new VerifyError(why);
}
