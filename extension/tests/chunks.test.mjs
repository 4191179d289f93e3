import assert from 'node:assert/strict';
import test from 'node:test';

import { ChunkAssembler, decodedLength } from '../lib/chunks.js';
import { logger } from './fakes.mjs';

/** Splits msg's UTF-8 JSON into chunk objects of at most size bytes. */
function pieces(msg, size, id = 'c1') {
  const bytes = Buffer.from(JSON.stringify(msg), 'utf8');
  const out = [];
  for (let off = 0; off < bytes.length; off += size) {
    out.push(bytes.subarray(off, off + size).toString('base64'));
  }
  return out.map((data, seq) => ({ id, seq, total: out.length, data }));
}

function feed(asm, list) {
  return list.map((p) => asm.push(p));
}

const MSG = { id: 7, method: 'ping', params: { echo: 'x'.repeat(100) } };

test('reassembles pieces sent in order', () => {
  const asm = new ChunkAssembler();
  const got = feed(asm, pieces(MSG, 40));
  assert.ok(got.length >= 3);
  assert.deepEqual(got.slice(0, -1), Array(got.length - 1).fill(null));
  assert.deepEqual(got.at(-1), { message: MSG });
  assert.equal(asm.pending, false);
});

test('decodes UTF-8 characters split across piece boundaries', () => {
  const msg = { id: 1, method: 'ping', params: { echo: 'é€😀中'.repeat(9) } };
  for (const size of [1, 2, 3, 5, 7]) {
    const asm = new ChunkAssembler();
    assert.deepEqual(feed(asm, pieces(msg, size)).at(-1), { message: msg });
  }
});

test('discards a message whose pieces arrive out of order', () => {
  const log = logger();
  const asm = new ChunkAssembler({ log });
  const [p0, p1, p2, p3] = pieces(MSG, 40);
  assert.equal(asm.push(p0), null);
  assert.equal(asm.push(p2), null);
  assert.equal(asm.push(p1), null, 'later pieces of a discarded message');
  assert.equal(asm.push(p3), null);
  assert.equal(asm.pending, false);
  assert.equal(log.lines.length, 1, log.lines.join('\n'));
  assert.match(log.lines[0], /c1 discarded: piece 2 of c1 out of order/);
  const next = pieces(MSG, 40, 'c2');
  assert.deepEqual(feed(asm, next).at(-1), { message: MSG });
});

test('discards a message that does not start at seq 0', () => {
  const log = logger();
  const asm = new ChunkAssembler({ log });
  const [, p1, p2] = pieces(MSG, 60);
  assert.equal(asm.push(p1), null);
  assert.equal(asm.push(p2), null);
  assert.equal(log.lines.length, 1);
});

test('discards a repeated piece', () => {
  const asm = new ChunkAssembler({ log: logger() });
  const [p0, p1] = pieces(MSG, 40);
  assert.equal(asm.push(p0), null);
  assert.equal(asm.push(p0), null);
  assert.equal(asm.push(p1), null);
  assert.equal(asm.pending, false);
});

test('discards a message with an inconsistent total', () => {
  const log = logger();
  const asm = new ChunkAssembler({ log });
  const list = pieces(MSG, 40);
  asm.push(list[0]);
  assert.equal(asm.push({ ...list[1], total: list[1].total + 1 }), null);
  assert.equal(asm.pending, false);
  assert.match(log.lines[0], /inconsistent total/);
  for (const p of list.slice(2)) assert.equal(asm.push(p), null);
});

test('a new id before completion discards the partial message', () => {
  const log = logger();
  const asm = new ChunkAssembler({ log });
  const a = pieces(MSG, 40, 'a');
  const other = { id: 9, result: { ok: 'ü'.repeat(30) } };
  const b = pieces(other, 40, 'b');
  asm.push(a[0]);
  assert.deepEqual(feed(asm, b).at(-1), { message: other });
  assert.match(log.lines[0], /a discarded: new id b before a was complete/);
  assert.equal(asm.push(a[1]), null, 'stale pieces of a are ignored');
});

test('discards a message over the size limit', () => {
  const log = logger();
  const asm = new ChunkAssembler({ log, maxBytes: 100 });
  const got = feed(asm, pieces(MSG, 40));
  assert.ok(got.every((g) => g === null));
  assert.equal(asm.pending, false);
  assert.match(log.lines[0], /over 100 bytes/);
  const small = { id: 1, result: {} };
  assert.deepEqual(feed(asm, pieces(small, 5, 'c9')).at(-1), {
    message: small,
  });
});

test('bad input is logged and dropped, never thrown', () => {
  const cases = {
    'not an object': [null],
    'missing id': [{ seq: 0, total: 2, data: '' }],
    'total of 1': [{ id: 'x', seq: 0, total: 1, data: 'e30=' }],
    'seq past total': [{ id: 'x', seq: 2, total: 2, data: 'e30=' }],
    'bad base64': [{ id: 'x', seq: 0, total: 2, data: '!!!' }],
    'invalid JSON': [
      { id: 'x', seq: 0, total: 2, data: btoa('{"a":') },
      { id: 'x', seq: 1, total: 2, data: btoa('}') },
    ],
    'invalid UTF-8': [
      { id: 'x', seq: 0, total: 2, data: btoa('"\xff') },
      { id: 'x', seq: 1, total: 2, data: btoa('"') },
    ],
  };
  for (const [name, list] of Object.entries(cases)) {
    const log = logger();
    const asm = new ChunkAssembler({ log });
    for (const p of list) assert.equal(asm.push(p), null, name);
    assert.equal(log.lines.length, 1, `${name}: ${log.lines}`);
  }
});

test('decodedLength matches Buffer decoding', () => {
  for (let n = 0; n < 10; n++) {
    const b64 = Buffer.alloc(n, 7).toString('base64');
    assert.equal(decodedLength(b64), n);
  }
});
