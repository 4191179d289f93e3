// A short browser name for hello, e.g. "Chromium/156" or "Microsoft Edge/120".

const GENERIC = /not.?a.?brand|^chromium$/i;

/** @param {{userAgent?: string, userAgentData?: {brands?: Array<{brand: string, version: string}>}}} nav */
export function browserName(nav) {
  const brands = nav?.userAgentData?.brands ?? [];
  const real = brands.filter((b) => !/not.?a.?brand/i.test(b.brand));
  const pick = real.find((b) => !GENERIC.test(b.brand)) ?? real[0];
  if (pick) return `${pick.brand}/${pick.version}`;
  const ua = nav?.userAgent ?? '';
  for (const [re, name] of [
    [/Edg\/(\d+)/, 'Microsoft Edge'],
    [/OPR\/(\d+)/, 'Opera'],
    [/HeadlessChrome\/(\d+)/, 'HeadlessChrome'],
    [/Chrome\/(\d+)/, 'Chrome'],
  ]) {
    const m = ua.match(re);
    if (m) return `${name}/${m[1]}`;
  }
  return 'unknown';
}
