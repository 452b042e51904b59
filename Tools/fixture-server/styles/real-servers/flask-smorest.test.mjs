// Unit tests of the x-pagination style (flask-smorest.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pythonJson } from '../../shared/python.mjs';
import { flaskSmorestPagination, wrapXPagination } from './flask-smorest.mjs';
import { bytes, listSettings as settings, parseList as parse, refusal } from '../../testing/units.mjs';

const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

describe('x-pagination (flask-smorest)', () => {
  test('page and page_size: the first value of each; 422 for what marshmallow refuses, every error listed', () => {
    assert.deepEqual(parse('x-pagination', ''), { page: 1, limit: 10, totals: settings.totals });
    assert.deepEqual(parse('x-pagination', 'page=3&page_size=50&page=9&per_page=2&foo=1'), { page: 3, limit: 50, totals: settings.totals });
    assert.deepEqual(parse('x-pagination', 'page=%202%20&page_size=1_0'), { page: 2, limit: 10, totals: settings.totals });
    const invalid = (errors) => ({ status: 422, body: { code: 422, errors: { query: errors }, status: 'Unprocessable Entity' }, headers: {} });
    assert.deepEqual(refusal('x-pagination', 'page=0'), invalid({ page: ['Must be greater than or equal to 1.'] }));
    assert.deepEqual(refusal('x-pagination', 'page=x'), invalid({ page: ['Not a valid integer.'] }));
    assert.deepEqual(refusal('x-pagination', 'page_size=51'), invalid({ page_size: ['Must be greater than or equal to 1 and less than or equal to 50.'] }));
    assert.deepEqual(refusal('x-pagination', 'page_size=2.0&page=-1'), invalid({ page: ['Must be greater than or equal to 1.'], page_size: ['Not a valid integer.'] }));
    assert.deepEqual(refusal('x-pagination', 'page_size='), invalid({ page_size: ['Not a valid integer.'] }));
  });

  test('the metadata of _make_pagination_metadata: keys in its order, none past the end; the header as json.dumps writes it', () => {
    assert.deepEqual(flaskSmorestPagination(1, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3, page: 1, next_page: 2 });
    assert.deepEqual(flaskSmorestPagination(2, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3, page: 2, previous_page: 1, next_page: 3 });
    assert.deepEqual(flaskSmorestPagination(3, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3, page: 3, previous_page: 2 });
    assert.deepEqual(flaskSmorestPagination(4, 10, 25), { total: 25, total_pages: 3, first_page: 1, last_page: 3 });
    assert.deepEqual(flaskSmorestPagination(1, 10, 0), { total: 0, total_pages: 0 });
    assert.deepEqual(flaskSmorestPagination(1, 10, 10), { total: 10, total_pages: 1, first_page: 1, last_page: 1, page: 1 });
    assert.equal(pythonJson(flaskSmorestPagination(2, 10, 25)),
      '{"total": 25, "total_pages": 3, "first_page": 1, "last_page": 3, "page": 2, "previous_page": 1, "next_page": 3}');
    const page = wrapXPagination(items, { pagination: '{"total": 0, "total_pages": 0}' });
    assert.deepEqual(page.headers, { 'X-Pagination': '{"total": 0, "total_pages": 0}' });
    assert.equal(bytes(page.parts).toString(), '[{"id":"a"},{"id":"b"}]');
    assert.deepEqual(wrapXPagination(items, { pagination: null }).headers, {});
  });
});
