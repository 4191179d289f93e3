import assert from 'node:assert/strict';
import test from 'node:test';

import { browserName } from '../lib/browser.js';
import { classify } from '../lib/message.js';

test('classifies messages', () => {
  const cases = [
    [{ id: 1, method: 'ping' }, 'request'],
    [{ id: 1, method: 'ping', params: { echo: 1 }, extra: true }, 'request'],
    [{ id: 1, method: 'ping', params: null }, 'request'],
    [{ id: 2, result: null }, 'reply'],
    [{ id: 2, error: { code: 'x' } }, 'reply'],
    [{ method: 'link.reconnected', params: {} }, 'event'],
    [{ chunk: { id: 'c1' } }, 'chunk'],
    [{ id: 1, method: 7 }, 'bad_request'],
    [{ id: 1, method: '' }, 'bad_request'],
    [{ id: 1, method: 'ping', params: [1] }, 'bad_request'],
    [{ id: 0, method: 'ping' }, 'invalid'],
    [{ id: 1.5, result: 1 }, 'invalid'],
    [{ id: '1', method: 'ping' }, 'invalid'],
    [{ id: 3, result: 1, error: {} }, 'invalid'],
    [{ id: 3 }, 'invalid'],
    [{}, 'invalid'],
    [[], 'invalid'],
    [null, 'invalid'],
    ['ping', 'invalid'],
  ];
  for (const [msg, want] of cases) {
    assert.equal(classify(msg), want, JSON.stringify(msg));
  }
});

test('names the browser briefly', () => {
  const cases = [
    [
      {
        userAgentData: {
          brands: [
            { brand: 'Not)A;Brand', version: '8' },
            { brand: 'Chromium', version: '156' },
            { brand: 'Google Chrome', version: '156' },
          ],
        },
      },
      'Google Chrome/156',
    ],
    [
      {
        userAgentData: {
          brands: [
            { brand: 'Chromium', version: '156' },
            { brand: 'Not_A Brand', version: '24' },
          ],
        },
      },
      'Chromium/156',
    ],
    [
      {
        userAgent:
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
      },
      'HeadlessChrome/156',
    ],
    [
      { userAgent: 'Mozilla/5.0 Chrome/120.0 Safari/537.36 Edg/120.0' },
      'Microsoft Edge/120',
    ],
    [{}, 'unknown'],
  ];
  for (const [nav, want] of cases) assert.equal(browserName(nav), want);
});
