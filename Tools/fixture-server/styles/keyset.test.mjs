// Unit tests of the keyset style's envelope (keyset.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapKeyset } from './keyset.mjs';
import { bytes } from '../testing/units.mjs';

describe('envelopes', () => {
  const items = [Buffer.from('[{"id":"a","title":"t"}]')];

  test('keyset', () => {
    const page = wrapKeyset(items, { hasMore: true });
    assert.deepEqual(page.headers, {});
    assert.equal(bytes(page.parts).toString(), '{"object":"list","data":[{"id":"a","title":"t"}],"has_more":true,"url":"/notes"}');
    assert.equal(bytes(wrapKeyset([Buffer.from('[]')], { hasMore: false }).parts).toString(), '{"object":"list","data":[],"has_more":false,"url":"/notes"}');
  });
});
