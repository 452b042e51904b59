// Unit tests of content-coding negotiation (compression.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseEncoding, parseCompress } from './compression.mjs';

describe('compression', () => {
  const offered = ['gzip', 'deflate', 'br'];
  for (const [header, list, expected] of [
    [undefined, offered, null],
    ['', offered, null],
    ['identity', offered, null],
    ['gzip', offered, 'gzip'],
    ['br', offered, 'br'],
    ['gzip, deflate, br', offered, 'gzip'],
    ['gzip, deflate, br', ['br', 'gzip'], 'br'],
    ['gzip;q=0.5, br', offered, 'br'],
    ['GZIP ; Q=0.8, deflate;q=0.9', offered, 'deflate'],
    ['x-gzip', offered, 'gzip'],
    ['*', ['deflate', 'gzip'], 'deflate'],
    ['*;q=0.1, gzip;q=0', offered, 'deflate'],
    ['gzip;q=0', offered, null],
    ['gzip;q=2, br', offered, 'br'],
    ['gzip;q=abc', offered, null],
    ['br', ['gzip'], null],
    ['gzip', [], null],
  ]) {
    test(`chooseEncoding(${JSON.stringify(header)}, ${list.join(',') || 'nothing'}) is ${expected}`, () => {
      assert.equal(chooseEncoding(header, list), expected);
    });
  }

  test('parseCompress', () => {
    assert.deepEqual(parseCompress('deflate', 'x'), ['deflate']);
    assert.deepEqual(parseCompress(' none ', 'x'), []);
    assert.throws(() => parseCompress('gzip,none', 'compress='), /compress= takes a comma-separated list/);
  });
});
