// Unit tests of the cursor pages' envelopes and URLs (cursor.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pageUrl, wrapContract, wrapHeader } from './cursor.mjs';
import { bytes } from '../testing/units.mjs';

describe('envelopes', () => {
  const items = [Buffer.from('[{"id":"a","title":"t"}]')];
  const nav = { nextCursor: 'c+/=', nextUrl: 'http://h:1/notes?cursor=c%2B%2F%3D', prevUrl: 'http://h:1/notes' };

  test('pageUrl percent-encodes cursors and keeps carried parameters', () => {
    assert.equal(pageUrl('http://h:1', null), 'http://h:1/notes');
    assert.equal(pageUrl('http://h:1', 'a+b/c= d&#'), 'http://h:1/notes?cursor=a%2Bb%2Fc%3D%20d%26%23');
    assert.equal(pageUrl('http://h:1', 'c', [['style', 'drf'], ['fault', '503@2x1']]), 'http://h:1/notes?cursor=c&style=drf&fault=503%402x1');
    assert.equal(pageUrl('http://h:1', null, [['style', 'link']]), 'http://h:1/notes?style=link');
  });

  test('contract', () => {
    const page = wrapContract(items, nav);
    assert.deepEqual(page.headers, {});
    assert.equal(bytes(page.parts).toString(), '{"notes":[{"id":"a","title":"t"}],"next_cursor":"c+/="}');
    assert.equal(bytes(wrapContract(items, { nextCursor: null, nextUrl: null, prevUrl: null }).parts).toString(),
      '{"notes":[{"id":"a","title":"t"}],"next_cursor":null}');
  });

  test('header', () => {
    const page = wrapHeader(items, nav);
    assert.deepEqual(page.headers, { 'X-Next-Cursor': 'c+/=' });
    assert.equal(bytes(page.parts).toString(), '{"notes":[{"id":"a","title":"t"}]}');
    assert.deepEqual(wrapHeader(items, { nextCursor: null }).headers, {});
  });
});
