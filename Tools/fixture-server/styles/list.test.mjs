// Unit tests of the list styles' paging parameters (list.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../shared/errors.mjs';
import { LIMIT_NAMES, parseListQuery, resolvePageNumber } from './list.mjs';

describe('parseListQuery', () => {
  const settings = { pageSize: 10, maxLimit: 50, totals: { count: true, header: true, link: true, pages: true } };
  const parse = (style, query) => parseListQuery(style, new URLSearchParams(query), settings);

  test('defaults and caps', () => {
    assert.deepEqual(parse('offset', ''), { offset: 0, limit: 10, totals: settings.totals });
    assert.deepEqual(parse('offset', 'offset=30&limit=7&page=9'), { offset: 30, limit: 7, totals: settings.totals });
    assert.equal(parse('offset', 'limit=51').limit, 50);
    assert.equal(parse('offset', `limit=${'9'.repeat(40)}`).limit, 50);
    assert.deepEqual(parse('page', 'page=3&per_page=500&limit=2'), { page: 3, limit: 50, totals: settings.totals });
    assert.deepEqual(parse('page', 'totals=none'), { page: 1, limit: 10, totals: { count: false, header: false, link: false, pages: false } });
    assert.deepEqual(parse('keyset', 'starting_after=n3&limit=4&totals=bogus'), { startingAfter: 'n3', limit: 4 });
    assert.deepEqual(parse('keyset', ''), { startingAfter: null, limit: 10 });
    assert.equal(parseListQuery('offset', new URLSearchParams(''), { ...settings, pageSize: 80 }).limit, 50);
  });

  test('drf (page, page_size) and jsonapi (page[number], page[size], raw or percent-encoded), capped alike', () => {
    assert.deepEqual(parse('drf', 'page=3&page_size=7&per_page=1'), { page: 3, limit: 7, totals: settings.totals });
    assert.deepEqual(parse('drf', 'page_size=51&totals=count'), { page: 1, limit: 50, totals: { count: true, header: false, link: false, pages: false } });
    assert.deepEqual(parse('jsonapi', 'page[number]=2&page[size]=4&page=9'), { page: 2, limit: 4, totals: settings.totals });
    assert.deepEqual(parse('jsonapi', 'page%5Bnumber%5D=2&page%5bsize%5d=4'), { page: 2, limit: 4, totals: settings.totals });
    assert.deepEqual(parse('jsonapi', 'page%5Bsize%5D=500'), { page: 1, limit: 50, totals: settings.totals });
    assert.deepEqual(parse('jsonapi', ''), { page: 1, limit: 10, totals: settings.totals });
    assert.deepEqual(Object.keys(LIMIT_NAMES).sort(),
      ['drf', 'dynamodb', 'eve', 'jsonapi', 'keyset', 'next-page', 'offset', 'offset-echo', 'ogc', 'page', 'page-echo', 'x-pagination']);
  });

  test('drf and jsonapi read values as Django REST framework does: the last one, by int(); a bad size is the default', () => {
    assert.deepEqual(parse('drf', 'page=2&page=3&page_size=4&page_size=6'), { page: 3, limit: 6, totals: settings.totals });
    assert.deepEqual(parse('drf', 'page=+2&page_size=%204%20'), { page: 2, limit: 4, totals: settings.totals });
    assert.deepEqual(parse('drf', 'page=1_0&page_size=1_2'), { page: 10, limit: 12, totals: settings.totals });
    for (const size of ['0', '-3', 'x', '', '2.5', '1e2']) assert.equal(parse('drf', `page_size=${size}`).limit, 10, size);
    for (const size of ['0', '-3', 'big']) assert.equal(parse('jsonapi', `page[size]=${size}`).limit, 10, size);
    for (const page of ['x', '', '2.0', '1e1', '_1', '1__0']) assert.equal(parse('drf', `page=${page}`).page, null, page);
    assert.equal(parse('drf', 'page=0').page, 0);
    assert.equal(parse('drf', 'page=-2').page, -2);
    assert.equal(parse('drf', 'page=last').page, 'last');
    assert.equal(parse('jsonapi', 'page[number]=last').page, 'last');
    assert.equal(parse('jsonapi', 'page%5Bnumber%5D=abc').page, null);
  });

  test('resolvePageNumber: the pages that Django\'s Paginator has; page 1 always; last', () => {
    assert.deepEqual([1, 2, 3, 4, 0, -1, null, 2.5].map((page) => resolvePageNumber(page, 25, 10)), [1, 2, 3, null, null, null, null, null]);
    assert.equal(resolvePageNumber('last', 25, 10), 3);
    assert.equal(resolvePageNumber('last', 0, 10), 1);
    assert.equal(resolvePageNumber(1, 0, 10), 1);
    assert.equal(resolvePageNumber(2, 0, 10), null);
    assert.equal(resolvePageNumber(30, 30, 1), 30);
  });

  for (const [style, query, message] of [
    ['offset', 'offset=-1', /offset must be an integer of at least 0, not '-1'/],
    ['offset', 'offset=1.5', /offset must be an integer/],
    ['offset', 'offset=', /offset must be an integer/],
    ['offset', 'offset=+3', /offset must be an integer/],
    ['offset', 'offset=99999999999999999999', /offset must be at most 9007199254740991/],
    ['offset', 'limit=0', /limit must be an integer of at least 1/],
    ['offset', 'limit=ten', /limit must be an integer/],
    ['offset', 'offset=1&offset=2', /more than one offset/],
    ['offset', 'totals=bogus', /totals= takes/],
    ['page', 'page=0', /page must be an integer of at least 1/],
    ['page', 'page=x', /page must be an integer/],
    ['page', 'per_page=0', /per_page must be an integer of at least 1/],
    ['page', 'totals=none&totals=count', /more than one totals/],
    ['keyset', 'limit=-5', /limit must be an integer/],
    ['keyset', 'starting_after=a&starting_after=b', /more than one starting_after/],
    ['drf', 'totals=some', /totals= takes/],
    ['jsonapi', 'totals=none&totals=none', /more than one totals/],
  ]) {
    test(`${style}: rejects ${query}`, () => {
      assert.throws(() => parse(style, query), (error) => error instanceof UsageError && message.test(error.message));
    });
  }
});
