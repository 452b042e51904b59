// Unit tests of the page-echo and offset-echo styles (litestar.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapOffsetEcho, wrapPageEcho } from './litestar.mjs';
import { bytes, listSettings as settings, parseList as parse, refusal } from '../../testing/units.mjs';

const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

describe('page-echo and offset-echo (Litestar)', () => {
  test('current_page and page_size; offset and limit; sizes capped silently; unknown names ignored', () => {
    assert.deepEqual(parse('page-echo', ''), { limit: 10, page: 1, totals: settings.totals });
    assert.deepEqual(parse('page-echo', 'current_page=3&page_size=99&page=7'), { limit: 50, page: 3, totals: settings.totals });
    assert.deepEqual(parse('offset-echo', ''), { limit: 10, offset: 0, totals: settings.totals });
    assert.deepEqual(parse('offset-echo', 'offset=13&limit=4&page=2'), { limit: 4, offset: 13, totals: settings.totals });
  });

  test("Litestar's 400: Validation failed for METHOD TARGET, msgspec's messages for each parameter", () => {
    const request = { method: 'GET', target: '/notes?current_page=0&page_size=x&page_size=2' };
    assert.deepEqual(refusal('page-echo', 'current_page=0&page_size=x&page_size=2', request), {
      status: 400,
      body: {
        status_code: 400,
        detail: 'Validation failed for GET /notes?current_page=0&page_size=x&page_size=2',
        extra: [{ message: 'Expected `int`, got `array`', key: 'page_size', source: 'query' }, { message: 'Expected `int` >= 1', key: 'current_page', source: 'query' }],
      },
      headers: {},
    });
    assert.deepEqual(refusal('offset-echo', 'offset=-1&limit=1.5').body.extra, [
      { message: 'Expected `int`, got `str`', key: 'limit', source: 'query' },
      { message: 'Expected `int` >= 0', key: 'offset', source: 'query' },
    ]);
    assert.equal(refusal('offset-echo', 'limit=0').body.detail, 'Validation failed for GET /notes');
  });

  test('the envelopes: items, then the page as served; totals left out when off', () => {
    assert.equal(bytes(wrapPageEcho(items, { limit: 2, page: 1, totalPages: 4 }).parts).toString(),
      '{"items":[{"id":"a"},{"id":"b"}],"page_size":2,"current_page":1,"total_pages":4}');
    assert.equal(bytes(wrapPageEcho(items, { limit: 2, page: 1, totalPages: null }).parts).toString(), '{"items":[{"id":"a"},{"id":"b"}],"page_size":2,"current_page":1}');
    assert.equal(bytes(wrapOffsetEcho(items, { limit: 2, offset: 4, total: 7 }).parts).toString(), '{"items":[{"id":"a"},{"id":"b"}],"limit":2,"offset":4,"total":7}');
    assert.equal(bytes(wrapOffsetEcho(items, { limit: 2, offset: 4, total: null }).parts).toString(), '{"items":[{"id":"a"},{"id":"b"}],"limit":2,"offset":4}');
    assert.deepEqual(wrapOffsetEcho(items, { limit: 2, offset: 4, total: 7 }).headers, {});
  });
});
