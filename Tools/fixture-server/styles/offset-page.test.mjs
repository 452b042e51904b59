// Unit tests of the offset and page styles' envelopes (offset-page.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapOffset, wrapPageNumber } from './offset-page.mjs';
import { bytes } from '../testing/units.mjs';

describe('envelopes', () => {
  const items = [Buffer.from('[{"id":"a","title":"t"}]')];
  const totals = { count: 7, totalPages: 3, totalHeader: 7, lastUrl: 'http://h:1/notes?page=3&per_page=3' };
  const none = { count: null, totalPages: null, totalHeader: null, lastUrl: null };

  test('offset: count first, X-Total-Count; no Link', () => {
    const page = wrapOffset(items, { nextUrl: 'http://h:1/notes?offset=3&limit=3', prevUrl: null, ...totals });
    assert.deepEqual(page.headers, { 'X-Total-Count': '7' });
    assert.equal(bytes(page.parts).toString(), '{"count":7,"next":"http://h:1/notes?offset=3&limit=3","previous":null,"results":[{"id":"a","title":"t"}]}');
    const bare = wrapOffset(items, { nextUrl: null, prevUrl: 'http://h:1/notes?offset=0&limit=3', ...none });
    assert.deepEqual(bare.headers, {});
    assert.equal(bytes(bare.parts).toString(), '{"next":null,"previous":"http://h:1/notes?offset=0&limit=3","results":[{"id":"a","title":"t"}]}');
  });

  test('page: count and total_pages first, Link next and last, X-Total-Count', () => {
    const next = 'http://h:1/notes?page=2&per_page=3';
    const page = wrapPageNumber(items, { nextUrl: next, prevUrl: null, ...totals });
    assert.deepEqual(page.headers, { 'X-Total-Count': '7', Link: `<${next}>; rel="next", <${totals.lastUrl}>; rel="last"` });
    assert.equal(bytes(page.parts).toString(), `{"count":7,"total_pages":3,"next":"${next}","previous":null,"results":[{"id":"a","title":"t"}]}`);
    assert.deepEqual(wrapPageNumber(items, { nextUrl: next, prevUrl: null, ...none }).headers, { Link: `<${next}>; rel="next"` });
    assert.deepEqual(wrapPageNumber(items, { nextUrl: null, prevUrl: null, ...none }).headers, {});
    assert.equal(bytes(wrapPageNumber(items, { nextUrl: null, prevUrl: null, ...none, totalPages: 1 }).parts).toString(),
      '{"total_pages":1,"next":null,"previous":null,"results":[{"id":"a","title":"t"}]}');
  });
});
