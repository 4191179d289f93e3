// Colours as the browser paints them (part of internal/visible: these
// declarations sit inside visible.go's wrapper, beside paint.js and
// visible.js). A computed colour in any space (rgb(), oklch(), lab(),
// color(display-p3 …), color-mix()) is painted on a 1×1 canvas and read
// back as sRGB: the browser's own conversion. Pixels are [r, g, b, a] with
// r, g, b in 0‥255 and a in 0‥1.

const MIN_CONTRAST = 1.2;

const colours = new Map();
let ink2d = null;

// rgba parses a computed colour; null when the browser cannot paint it
// (a gradient, 'currentcolor' outside an element, garbage).
function rgba(s) {
  let c = colours.get(s);
  if (c === undefined) {
    c = parseColour(s);
    if (colours.size < 4096) colours.set(s, c);
  }
  return c;
}

function parseColour(s) {
  if (!s) return null;
  const m = /^rgba?\(([^)]*)\)$/.exec(s);
  if (m) {
    const p = m[1].split(/[\s,/]+/).filter(Boolean).map((v) => (v.endsWith('%') ? parseFloat(v) / 100 : parseFloat(v)));
    if (p.length >= 3 && !p.some(Number.isNaN)) return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  if (s === 'transparent') return [0, 0, 0, 0];
  return painted(s);
}

// painted asks the browser to paint colour s and reads the pixel back.
function painted(s) {
  try {
    ink2d ||= new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true });
    const c = ink2d;
    c.fillStyle = '#010203';
    c.fillStyle = s;
    if (c.fillStyle === '#010203' && !/^#010203$/i.test(s)) return null; // not a colour
    c.clearRect(0, 0, 1, 1);
    c.fillRect(0, 0, 1, 1);
    const d = c.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  } catch {
    return null;
  }
}

// over composites top over under (both straight alpha).
function over(top, under) {
  const a = top[3];
  const b = under[3] * (1 - a);
  const out = a + b;
  if (out <= 0) return [0, 0, 0, 0];
  return [(top[0] * a + under[0] * b) / out, (top[1] * a + under[1] * b) / out, (top[2] * a + under[2] * b) / out, out];
}

function lum(c) {
  const f = (v) => ((v /= 255) <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}

function contrast(a, b) {
  const x = lum(a), y = lum(b);
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

// colourList returns the colours named in a computed value (a gradient, a
// shadow list): rgb()/rgba() and the other colour functions.
function colourList(s) {
  const out = [];
  for (const m of s.matchAll(/(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color|color-mix)\((?:[^()]|\([^()]*\))*\)|#[0-9a-f]{3,8}\b|\btransparent\b/gi)) {
    const c = rgba(m[0]);
    if (c) out.push(c);
  }
  return out;
}

// Blend modes (compositing spec) on channels in 0‥1: the backdrop cb and
// the source cs.
const SEPARABLE = {
  multiply: (b, s) => b * s,
  screen: (b, s) => b + s - b * s,
  overlay: (b, s) => SEPARABLE['hard-light'](s, b),
  darken: Math.min,
  lighten: Math.max,
  'color-dodge': (b, s) => (b === 0 ? 0 : s >= 1 ? 1 : Math.min(1, b / (1 - s))),
  'color-burn': (b, s) => (b >= 1 ? 1 : s <= 0 ? 0 : 1 - Math.min(1, (1 - b) / s)),
  'hard-light': (b, s) => (s <= 0.5 ? b * 2 * s : SEPARABLE.screen(b, 2 * s - 1)),
  'soft-light': (b, s) => {
    if (s <= 0.5) return b - (1 - 2 * s) * b * (1 - b);
    const d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : Math.sqrt(b);
    return b + (2 * s - 1) * (d - b);
  },
  difference: (b, s) => Math.abs(b - s),
  exclusion: (b, s) => b + s - 2 * b * s,
  'plus-lighter': (b, s) => Math.min(1, b + s),
};
const lumOf = (c) => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
function clipColour(c) {
  const l = lumOf(c), n = Math.min(...c), x = Math.max(...c);
  if (n < 0) c = c.map((v) => l + ((v - l) * l) / (l - n));
  if (x > 1) c = c.map((v) => l + ((v - l) * (1 - l)) / (x - l));
  return c;
}
const setLum = (c, l) => clipColour(c.map((v) => v + l - lumOf(c)));
const satOf = (c) => Math.max(...c) - Math.min(...c);
function setSat(c, s) {
  const x = Math.max(...c), n = Math.min(...c);
  return c.map((v) => (x === n ? 0 : ((v - n) * s) / (x - n)));
}
const NONSEPARABLE = {
  hue: (b, s) => setLum(setSat(s, satOf(b)), lumOf(b)),
  saturation: (b, s) => setLum(setSat(b, satOf(s)), lumOf(b)),
  color: (b, s) => setLum(s, lumOf(b)),
  luminosity: (b, s) => setLum(b, lumOf(s)),
};

// blend draws source src over backdrop dst with a blend mode.
function blend(mode, src, dst) {
  if (src[3] <= 0) return dst;
  const b = [dst[0] / 255, dst[1] / 255, dst[2] / 255];
  const s = [src[0] / 255, src[1] / 255, src[2] / 255];
  let m;
  if (SEPARABLE[mode]) m = b.map((v, i) => SEPARABLE[mode](v, s[i]));
  else if (NONSEPARABLE[mode]) m = NONSEPARABLE[mode](b, s);
  else m = s;
  // The source's colour where it covers an opaque backdrop is the blend
  // result; its alpha still mixes it with the backdrop.
  const mixed = [m[0] * 255, m[1] * 255, m[2] * 255, src[3]];
  return over(mixed, dst);
}

// Filters as pixel functions. filterOf parses a computed filter into
// {px: (pixel) => pixel, alpha (what it multiplies alpha by at most),
// blur (px), shadow (a drop-shadow colour, or null), unknown (an SVG
// filter we could not read)}; null for 'none'.
function filterOf(s, el) {
  if (!s || s === 'none') return null;
  const fx = { steps: [], alpha: 1, blur: 0, shadows: [], unknown: false };
  for (const m of s.matchAll(/([a-z-]+)\(((?:[^()]|\([^()]*\))*)\)/g)) {
    const [, name, arg] = m;
    const num = () => {
      const v = arg.trim();
      if (!v) return 1;
      return v.endsWith('%') ? parseFloat(v) / 100 : parseFloat(v);
    };
    switch (name) {
      case 'opacity': {
        const a = Math.max(0, Math.min(1, num()));
        fx.alpha *= a;
        fx.steps.push((p) => [p[0], p[1], p[2], p[3] * a]);
        break;
      }
      case 'blur':
        fx.blur = Math.hypot(fx.blur, parseFloat(arg) || 0);
        break;
      case 'brightness': {
        const k = num();
        fx.steps.push((p) => [Math.min(255, p[0] * k), Math.min(255, p[1] * k), Math.min(255, p[2] * k), p[3]]);
        break;
      }
      case 'contrast': {
        const k = num();
        const f = (v) => Math.max(0, Math.min(255, (v / 255 - 0.5) * k * 255 + 127.5));
        fx.steps.push((p) => [f(p[0]), f(p[1]), f(p[2]), p[3]]);
        break;
      }
      case 'invert': {
        const k = Math.min(1, num());
        fx.steps.push((p) => [p[0] + (255 - 2 * p[0]) * k, p[1] + (255 - 2 * p[1]) * k, p[2] + (255 - 2 * p[2]) * k, p[3]]);
        break;
      }
      case 'grayscale': case 'sepia': case 'saturate': case 'hue-rotate':
        fx.steps.push(matrixStep(name, name === 'hue-rotate' ? angle(arg) : num()));
        break;
      case 'drop-shadow': {
        const c = colourList(arg)[0] || [0, 0, 0, 1];
        fx.shadows.push(c);
        break;
      }
      case 'url':
        svgFilter(arg, el, fx);
        break;
      default:
        fx.unknown = true;
    }
  }
  fx.px = (p) => fx.steps.reduce((q, f) => f(q), p);
  return fx;
}

function angle(a) {
  const v = parseFloat(a) || 0;
  if (a.endsWith('rad')) return (v * 180) / Math.PI;
  if (a.endsWith('turn')) return v * 360;
  if (a.endsWith('grad')) return v * 0.9;
  return v;
}

// matrixStep is a colour-matrix filter (the filter-effects spec's
// matrices for grayscale, sepia, saturate and hue-rotate).
function matrixStep(name, k) {
  let m;
  if (name === 'hue-rotate' || name === 'saturate') {
    const c = Math.cos((k * Math.PI) / 180), s = Math.sin((k * Math.PI) / 180);
    m = name === 'saturate'
      ? [0.213 + 0.787 * k, 0.715 - 0.715 * k, 0.072 - 0.072 * k, 0.213 - 0.213 * k, 0.715 + 0.285 * k, 0.072 - 0.072 * k, 0.213 - 0.213 * k, 0.715 - 0.715 * k, 0.072 + 0.928 * k]
      : [0.213 + c * 0.787 - s * 0.213, 0.715 - c * 0.715 - s * 0.715, 0.072 - c * 0.072 + s * 0.928,
        0.213 - c * 0.213 + s * 0.143, 0.715 + c * 0.285 + s * 0.14, 0.072 - c * 0.072 - s * 0.283,
        0.213 - c * 0.213 - s * 0.787, 0.715 - c * 0.715 + s * 0.715, 0.072 + c * 0.928 + s * 0.072];
  } else {
    k = Math.min(1, k);
    const g = [0.2126, 0.7152, 0.0722, 0.2126, 0.7152, 0.0722, 0.2126, 0.7152, 0.0722];
    const sp = [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131];
    const t = name === 'grayscale' ? g : sp;
    const id = [1, 0, 0, 0, 1, 0, 0, 0, 1];
    m = id.map((v, i) => v + (t[i] - v) * k);
  }
  return (p) => [0, 1, 2].map((r) => Math.max(0, Math.min(255, m[r * 3] * p[0] + m[r * 3 + 1] * p[1] + m[r * 3 + 2] * p[2]))).concat(p[3]);
}

// svgFilter reads the primitives of an SVG <filter> it can follow (a chain
// of feColorMatrix, feComponentTransfer alpha, feGaussianBlur, feFlood,
// feOffset); anything else makes the filter unknown (text is kept).
function svgFilter(arg, el, fx) {
  const id = /#([^"')\s]+)/.exec(arg)?.[1];
  const f = id && el?.ownerDocument.getElementById(decodeURIComponent(id));
  if (!f || f.localName !== 'filter') {
    fx.unknown = !f ? false : true; // a missing filter draws the element unfiltered
    return;
  }
  for (const p of f.children) {
    const tag = p.localName.toLowerCase();
    if (tag === 'fegaussianblur') {
      fx.blur = Math.hypot(fx.blur, parseFloat(p.getAttribute('stdDeviation')) || 0);
    } else if (tag === 'fecolormatrix') {
      const type = p.getAttribute('type') || 'matrix';
      const vals = (p.getAttribute('values') || '').trim().split(/[\s,]+/).map(parseFloat);
      if (type === 'matrix' && vals.length === 20) {
        fx.steps.push((q) => {
          const v = [q[0] / 255, q[1] / 255, q[2] / 255, q[3]];
          const r = [0, 1, 2, 3].map((i) => vals[i * 5] * v[0] + vals[i * 5 + 1] * v[1] + vals[i * 5 + 2] * v[2] + vals[i * 5 + 3] * v[3] + vals[i * 5 + 4]);
          return [r[0] * 255, r[1] * 255, r[2] * 255, Math.max(0, Math.min(1, r[3]))].map((x, i) => (i < 3 ? Math.max(0, Math.min(255, x)) : x));
        });
        fx.alpha *= Math.max(0, Math.min(1, vals[15] + vals[16] + vals[17] + vals[18] + vals[19]));
      } else if (type === 'saturate' || type === 'hueRotate') {
        fx.steps.push(matrixStep(type === 'saturate' ? 'saturate' : 'hue-rotate', vals[0] ?? 1));
      } else fx.unknown = true;
    } else if (tag === 'fecomponenttransfer') {
      const a = [...p.children].find((k) => k.localName.toLowerCase() === 'fefunca');
      if (a) {
        const type = a.getAttribute('type');
        const slope = parseFloat(a.getAttribute('slope') ?? '1'), icpt = parseFloat(a.getAttribute('intercept') ?? '0');
        const table = (a.getAttribute('tableValues') || '').trim().split(/[\s,]+/).filter(Boolean).map(parseFloat);
        let top = 1;
        if (type === 'linear') top = Math.max(icpt, slope + icpt);
        else if ((type === 'table' || type === 'discrete') && table.length) top = Math.max(...table);
        top = Math.max(0, Math.min(1, top));
        fx.alpha *= top;
        fx.steps.push((q) => [q[0], q[1], q[2], q[3] * top]);
      }
    } else if (tag === 'feflood') {
      const c = rgba(getComputedStyle(p).floodColor) || [0, 0, 0, 1];
      const a = c[3] * (parseFloat(getComputedStyle(p).floodOpacity) || 0);
      if (a >= 0.95 && !p.nextElementSibling) fx.steps.push(() => [c[0], c[1], c[2], 1]); // floods everything
    } else if (tag === 'feoffset') {
      const dx = parseFloat(p.getAttribute('dx')) || 0, dy = parseFloat(p.getAttribute('dy')) || 0;
      if (Math.abs(dx) > 5000 || Math.abs(dy) > 5000) fx.alpha = 0;
    } else if (tag !== 'femerge') fx.unknown = true;
  }
}
