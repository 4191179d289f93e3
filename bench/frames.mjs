// Where a screenshot's time goes in Chrome, with no server in the way:
// raw CDP captures of the form page in a loop, each followed by a busy
// gap that stands for a caller's own overhead (0 to 12 ms), with and
// without a page-side step before the capture. It prints the loop's p50
// (capture + gap) per gap: a loop of captures locks onto Chrome's frame
// clock, so the figures sit at whole frames (~33, ~50 ms), and the gap at
// which a row jumps is the overhead a caller can afford and keep its
// frame count. bench/README.md ("Screenshot timings move in whole
// frames") reads the result.
//
// With --background the page is a background tab held painting by a
// screencast for each capture, as Gasoline's are, and each cell is the
// loop's p50 / mean: a background tab's captures alternate between two
// and three frames, which a p50 alone hides (bench/README.md, "Why the
// masked row stays on three frames").
//
// With --screencast (implies --background) it asks whether a screencast's
// first frame could stand in for the capture (it arrives in one frame, not
// two or three): each round changes a visible counter, masks or unmasks,
// takes the first Page.screencastFrame (PNG) and then a capture, and
// counts the first frames that are byte for byte the previous round's
// capture — the last frame drawn, from before the change and the mask
// (bench/README.md, "A screencast's first frame is stale").
//
// With --window the page is the active tab of a window of its own, opened
// unfocused (as an agent's window would be): visible, so it paints
// without a hold; the foreground rows run there (bench/README.md, "A
// window of its own").
//
//   node bench/frames.mjs [--n 30] [--background] [--screencast] [--window]
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { tmpRoot } from './lib/gasoline.mjs';
import { HOLD, launch, MASK_OFF, MASK_ON } from './lib/rawcdp.mjs';
import { serve } from './lib/static.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const { values: opt } = parseArgs({
  options: {
    n: { type: 'string', default: '30' },
    background: { type: 'boolean', default: false },
    screencast: { type: 'boolean', default: false },
    window: { type: 'boolean', default: false },
  },
});
const N = Number(opt.n);
const WARM = 3;
const GAPS = [0, 2, 4, 6, 8, 10, 12];

const busy = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

// backgroundRows are the loops of a background tab: held painting by a
// screencast for each capture (Gasoline's hold, internal/observe), with
// and without the mask, and captured from the view rather than the
// surface, which Chrome allows only to trusted clients (raw CDP; a
// chrome.debugger client is refused: "Only screenshots from surface are
// allowed.").
function backgroundRows(pipe, s) {
  const ev = (expression) =>
    pipe.send('Runtime.evaluate', { expression, returnByValue: true }, s);
  const held = async (before, after, extra = {}) => {
    await Promise.all([before(), pipe.send('Page.startScreencast', HOLD, s)]);
    const r = await pipe.send(
      'Page.captureScreenshot',
      { format: 'png', optimizeForSpeed: true, ...extra },
      s,
    );
    await Promise.all([after(), pipe.send('Page.stopScreencast', {}, s)]);
    return r;
  };
  const none = async () => {};
  return {
    'hold, capture, release': () => held(none, none),
    'hold ∥ mask, capture, check ∥ release': () =>
      held(
        () => ev(MASK_ON),
        () => ev(MASK_OFF),
      ),
    'the same from the view (fromSurface false)': () =>
      held(
        () => ev(MASK_ON),
        () => ev(MASK_OFF),
        { fromSurface: false },
      ),
  };
}

// firstFrames runs the --screencast rounds on session s (a background tab
// showing the form page) and prints how many first frames were stale.
async function firstFrames(pipe, s) {
  const ev = (expression) =>
    pipe.send('Runtime.evaluate', { expression, returnByValue: true }, s);
  const capture = async () => {
    await pipe.send('Page.startScreencast', HOLD, s);
    const r = await pipe.send(
      'Page.captureScreenshot',
      { format: 'png', optimizeForSpeed: true },
      s,
    );
    await pipe.send('Page.stopScreencast', {}, s);
    return r.data;
  };
  await ev(`(() => { const d = document.createElement('div'); d.id = '__bench_n';
    d.style.cssText = 'position:fixed;top:0;left:0;font:40px sans-serif;background:#fff';
    document.body.appendChild(d); })()`);
  let prev = await capture(); // a background tab never drawn sends no first frame
  let stale = 0;
  const ms = [];
  for (let i = 0; i < N; i++) {
    await ev(`document.getElementById('__bench_n').textContent = 'round ${i}'`);
    if (i % 2 === 0) await ev(MASK_ON);
    const t0 = performance.now();
    const first = pipe.event('Page.screencastFrame', s);
    await pipe.send(
      'Page.startScreencast',
      { format: 'png', everyNthFrame: 1 },
      s,
    );
    const f = await first;
    ms.push(performance.now() - t0);
    await pipe.send('Page.screencastFrameAck', { sessionId: f.sessionId }, s);
    await pipe.send('Page.stopScreencast', {}, s);
    if (f.data === prev) stale++;
    prev = await capture();
    if (i % 2 === 0) await ev(MASK_OFF);
  }
  console.log(
    `screencast first frame, background tab, form page: ${stale} of ${N} ` +
      `byte for byte the previous round's capture (from before this round's ` +
      `change and mask); first frame p50 ${p50(ms).toFixed(1)} ms`,
  );
}

async function main() {
  const tmp = tmpRoot();
  const srv = await serve({ '/': path.join(HERE, '..', 'testdata') });
  const b = await launch(tmp);
  const { pipe } = b;
  let s = b.sessionId;
  try {
    if (opt.background || opt.screencast || opt.window) {
      const { targetId } = await pipe.send('Target.createTarget', {
        url: 'about:blank',
        background: true,
        newWindow: opt.window,
      });
      ({ sessionId: s } = await pipe.send('Target.attachToTarget', {
        targetId,
        flatten: true,
      }));
      await pipe.send('Page.enable', {}, s);
    }
    const loaded = pipe.event('Page.loadEventFired', s);
    await pipe.send(
      'Page.navigate',
      { url: `${srv.origin}/pages/form.html` },
      s,
    );
    await loaded;
    const shot = (extra = {}) =>
      pipe.send('Page.captureScreenshot', { format: 'png', ...extra }, s);
    const ev = (expression) =>
      pipe.send('Runtime.evaluate', { expression, returnByValue: true }, s);
    const foreground = {
      'capture (CDP defaults)': () => shot(),
      'capture, optimizeForSpeed': () => shot({ optimizeForSpeed: true }),
      'no-op evaluate, capture': async () => {
        await ev('1');
        return shot();
      },
      'no-op evaluate, capture, optimizeForSpeed': async () => {
        await ev('1');
        return shot({ optimizeForSpeed: true });
      },
      'mask, capture, check (what a masked capture asks)': async () => {
        await ev(MASK_ON);
        const r = await shot();
        await ev(MASK_OFF);
        return r;
      },
    };
    if (opt.screencast) {
      await firstFrames(pipe, s);
      return;
    }
    const rows = opt.background ? backgroundRows(pipe, s) : foreground;
    console.log(
      `loop ${opt.background ? 'p50 / mean' : 'p50'} ms (capture + gap), ` +
        `${N} captures per cell, form page` +
        `${opt.background ? ', a background tab' : ''}` +
        `${opt.window ? ', the active tab of a window of its own' : ''}, ` +
        `Chromium over --remote-debugging-pipe\n`,
    );
    console.log(`| steps | ${GAPS.map((g) => `gap ${g}`).join(' | ')} |`);
    console.log(`| --- | ${GAPS.map(() => '---').join(' | ')} |`);
    for (const [label, step] of Object.entries(rows)) {
      const cells = [];
      for (const gap of GAPS) {
        const ms = [];
        for (let i = 0; i < WARM + N; i++) {
          const t0 = performance.now();
          const r = await step();
          if (!r.data) throw new Error(`${label}: no image`);
          busy(gap);
          if (i >= WARM) ms.push(performance.now() - t0);
        }
        cells.push(
          opt.background
            ? `${p50(ms).toFixed(1)} / ${mean(ms).toFixed(1)}`
            : p50(ms).toFixed(1),
        );
      }
      console.log(`| ${label} | ${cells.join(' | ')} |`);
    }
  } finally {
    await b.stop();
    await srv.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
