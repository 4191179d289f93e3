import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import test from 'node:test';

import { Texts } from '../lib/texts.js';
import { count } from './fakechrome.mjs';
import { setup } from './harness.mjs';

const key = (t) => createHash('sha256').update(t, 'utf8').digest('hex');
const MASK = '(() => "masked é")()';

const seq = (texts) => ({
  tab_id: 5,
  steps: [
    {
      method: 'Runtime.evaluate',
      params: { returnByValue: true },
      expression_text: key(MASK),
    },
  ],
  ...(texts ? { texts } : {}),
});

test('cdp.sequence runs a kept text named by its SHA-256', async () => {
  const { c, relay } = setup();
  await assert.rejects(relay.handle('cdp.sequence', seq()), {
    code: 'unknown_text',
    retryable: true,
  });
  assert.equal(count(c.calls, 'send'), 0, 'nothing ran');
  const first = await relay.handle('cdp.sequence', seq({ [key(MASK)]: MASK }));
  assert.equal(first.results[0].result.result.value, MASK);
  const again = await relay.handle('cdp.sequence', seq());
  assert.equal(again.results[0].result.result.value, MASK, 'kept');
});

test('a text whose key is not its SHA-256 is refused, and nothing runs', async () => {
  const { c, relay } = setup();
  await assert.rejects(
    relay.handle('cdp.sequence', seq({ [key(MASK)]: 'alert(1)' })),
    { code: 'bad_request', message: /not its SHA-256/ },
  );
  await assert.rejects(relay.handle('cdp.sequence', seq({ nothex: MASK })), {
    code: 'bad_request',
  });
  await assert.rejects(relay.handle('cdp.sequence', seq()), {
    code: 'unknown_text',
  });
  const other = seq({ [key(MASK)]: MASK });
  other.steps[0].method = 'Page.enable';
  await assert.rejects(relay.handle('cdp.sequence', other), {
    code: 'bad_request',
    message: /Runtime.evaluate only/,
  });
  assert.equal(count(c.calls, 'send'), 0);
});

test('the store keeps the texts used last within its cap', async () => {
  const t = new Texts({ maxKept: 10 });
  const a = 'aaaa';
  const b = 'bbbb';
  const big = 'x'.repeat(11);
  await t.keep({ [key(a)]: a, [key(b)]: b });
  const step = (s) => ({ method: 'Runtime.evaluate', expression_text: key(s) });
  assert.equal(t.resolve(step(a)).params.expression, a); // a used last
  await t.keep({ [key('cc')]: 'cc', [key('dd')]: 'dd' }); // 12 > 10: b goes
  assert.throws(() => t.resolve(step(b)), { code: 'unknown_text' });
  assert.equal(t.resolve(step(a)).params.expression, a);
  await t.keep({ [key(big)]: big }); // over the cap: not kept
  assert.throws(() => t.resolve(step(big)), { code: 'unknown_text' });
  assert.equal(
    t.resolve(step(big), { [key(big)]: big }).params.expression,
    big,
    "the request's own text serves it",
  );
  assert.ok(t.size <= 10);
});
