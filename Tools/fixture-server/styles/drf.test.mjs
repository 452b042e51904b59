// Unit tests of Django REST framework's envelope and links (drf.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { quotePlus } from '../shared/python.mjs';
import { djangoUrl, wrapDrf } from './drf.mjs';
import { bytes } from '../testing/units.mjs';

describe('envelopes', () => {
  const items = [Buffer.from('[{"id":"a","title":"t"}]')];
  const nav = { nextCursor: 'c+/=', nextUrl: 'http://h:1/notes?cursor=c%2B%2F%3D', prevUrl: 'http://h:1/notes' };

  test('drf', () => {
    const page = wrapDrf(items, nav);
    assert.equal(bytes(page.parts).toString(),
      '{"next":"http://h:1/notes?cursor=c%2B%2F%3D","previous":"http://h:1/notes","results":[{"id":"a","title":"t"}]}');
  });

  test('drf with a count (with --id-kind int)', () => {
    const page = wrapDrf(items, { ...nav, count: 7 });
    assert.deepEqual(page.headers, {});
    assert.equal(bytes(page.parts).toString(),
      '{"count":7,"next":"http://h:1/notes?cursor=c%2B%2F%3D","previous":"http://h:1/notes","results":[{"id":"a","title":"t"}]}');
    assert.equal(bytes(wrapDrf(items, { ...nav, count: null }).parts).toString(), bytes(wrapDrf(items, nav).parts).toString());
  });

  test('djangoUrl: the query with one parameter replaced or removed, sorted by name, encoded as quote_plus', () => {
    const pairs = [['style', 'jsonapi'], ['page[size]', '100'], ['fault', 'delay:1'], ['fault', '503@2'], ['page[number]', '1']];
    assert.equal(djangoUrl('http://h:1', pairs, 'page[number]', 2),
      'http://h:1/notes?fault=delay%3A1&fault=503%402&page%5Bnumber%5D=2&page%5Bsize%5D=100&style=jsonapi');
    assert.equal(djangoUrl('http://h:1', [['page', '2'], ['style', 'drf']], 'page', null), 'http://h:1/notes?style=drf');
    assert.equal(djangoUrl('http://h:1', [['page', '2']], 'page', null), 'http://h:1/notes');
    assert.equal(djangoUrl('http://h:1', [['q', "a b!'()*~._-é"]], 'page', 3), "http://h:1/notes?page=3&q=a+b%21%27%28%29%2A~._-%C3%A9");
    assert.equal(quotePlus('page[number]'), 'page%5Bnumber%5D');
  });
});
