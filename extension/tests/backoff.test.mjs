import assert from 'node:assert/strict';
import test from 'node:test';

import { Backoff } from '../lib/backoff.js';

const NOMINAL = [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000];

test('doubles from 0.5 s and caps at 30 s', () => {
  const b = new Backoff({ random: () => 0.5 }); // factor exactly 1
  assert.deepEqual(
    NOMINAL.map(() => b.next()),
    NOMINAL,
  );
});

test('jitter stays within ±20% and never passes the cap', () => {
  for (const r of [0, 0.1, 0.5, 0.9, 0.999999]) {
    const b = new Backoff({ random: () => r });
    for (const n of NOMINAL) {
      const d = b.next();
      assert.ok(d >= Math.floor(n * 0.8), `r=${r} n=${n} d=${d}`);
      assert.ok(
        d <= Math.min(30000, Math.ceil(n * 1.2)),
        `r=${r} n=${n} d=${d}`,
      );
    }
  }
  assert.equal(new Backoff({ random: () => 0 }).next(), 400);
  assert.equal(new Backoff({ random: () => 0.999999 }).next(), 600);
});

test('a long outage keeps retrying at the cap', () => {
  const b = new Backoff({ random: () => 0.5 });
  for (let i = 0; i < 1000; i++) b.next();
  assert.equal(b.next(), 30000);
});

test('reset starts over at 0.5 s', () => {
  const b = new Backoff({ random: () => 0.5 });
  for (let i = 0; i < 5; i++) b.next();
  b.reset();
  assert.deepEqual([b.next(), b.next()], [500, 1000]);
});
