// Unit tests of bodies as parts (parts.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chunks, fill, partsLength } from './parts.mjs';

describe('body parts', () => {
  test('fills stream exactly their length of the repeated pattern', () => {
    const parts = [Buffer.from('<'), fill('abc', 10), Buffer.from('>')];
    assert.equal(partsLength(parts), 12);
    for (const size of [1, 2, 3, 4, 7, 100]) {
      const pieces = [...chunks(parts, size)];
      assert.ok(pieces.every((piece) => piece.length <= size && piece.length > 0));
      assert.equal(Buffer.concat(pieces).toString(), '<abcabcabca>');
    }
  });
});
