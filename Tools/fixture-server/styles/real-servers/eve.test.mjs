// Unit tests of the eve style (eve.mjs). Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyContentFaults } from '../../faults/hostile-bodies.mjs';
import { renderNote } from '../../notes/generated.mjs';
import { firstNoteId } from '../../notes/scan.mjs';
import { eveLinks, eveQuery, wrapEve } from './eve.mjs';
import { bytes, listSettings as settings, parseFaults, parseList as parse } from '../../testing/units.mjs';

const items = [Buffer.from('[{"id":"a"},{"id":"b"}]')];

describe('eve (Python Eve)', () => {
  test('page and max_results as Eve reads them: never refused', () => {
    assert.deepEqual(parse('eve', ''), { page: 1, limit: 10, totals: settings.totals });
    assert.deepEqual(parse('eve', 'page=3&max_results=7'), { page: 3, limit: 7, totals: settings.totals });
    for (const [query, page, limit] of [['page=-2', 2, 10], ['page=0', 1, 10], ['page=x', 1, 10], ['page=2.5', 1, 10], ['page=+4', 4, 10],
      ['max_results=2.9', 1, 2], ['max_results=0', 1, 10], ['max_results=-3', 1, 10], ['max_results=x', 1, 10], ['max_results=1e1', 1, 10],
      ['max_results=99', 1, 50], ['max_results=inf', 1, 10], ['page=2&page=5&max_results=4&max_results=6', 2, 4]]) {
      const parsed = parse('eve', query);
      assert.deepEqual([parsed.page, parsed.limit], [page, limit], query);
    }
  });

  test('querydef: max_results unless the default, where, sort, page after 1, then the other parameters raw', () => {
    const q = (pairs, page, maxResults = 10) => eveQuery(pairs, { page, maxResults, defaultMaxResults: 10 });
    assert.equal(q([], 1), '');
    assert.equal(q([], 2), '?page=2');
    assert.equal(q([['max_results', '10']], 2), '?page=2');
    assert.equal(q([['max_results', '3']], 1, 3), '?max_results=3');
    assert.equal(q([['style', 'eve'], ['page', '2'], ['sort', '-id'], ['fault', 'delay:1'], ['where', '{"a":1}'], ['style', 'x'], ['q', 'a b']], 3, 4),
      '?max_results=4&where={"a":1}&sort=-id&page=3&style=eve&style=x&fault=delay:1&q=a b');
  });

  test('_links: relative hrefs without a leading slash; next and last while more remain; prev after page 1', () => {
    const links = (page, count, more = {}) => eveLinks([['style', 'eve']], { page, maxResults: 10, defaultMaxResults: 10, count, ...more });
    assert.deepEqual(links(1, 25), {
      parent: { title: 'home', href: '/' },
      self: { title: 'notes', href: 'notes?style=eve' },
      next: { title: 'next page', href: 'notes?page=2&style=eve' },
      last: { title: 'last page', href: 'notes?page=3&style=eve' },
    });
    assert.deepEqual(links(3, 25), {
      parent: { title: 'home', href: '/' },
      self: { title: 'notes', href: 'notes?page=3&style=eve' },
      prev: { title: 'previous page', href: 'notes?page=2&style=eve' },
    });
    assert.deepEqual(Object.keys(links(2, 25)), ['parent', 'self', 'next', 'last', 'prev']);
    assert.deepEqual(links(1, 0), { parent: { title: 'home', href: '/' }, self: { title: 'notes', href: 'notes' } });
    // Without a count (OPTIMIZE_PAGINATION_FOR_SPEED), next on every page and no last.
    assert.deepEqual(Object.keys(links(9, null)), ['parent', 'self', 'next', 'prev']);
    assert.equal(links(9, null).self.href, 'notes');
    assert.deepEqual(Object.keys(links(1, 25, { last: false })), ['parent', 'self', 'next']);
    assert.equal(links(3, 25, { nextPage: 2 }).next.href, 'notes?page=2&style=eve');
    assert.ok(Object.values(links(2, 25)).every((link) => !link.href.startsWith('/') || link.href === '/'));
  });

  test('the envelope: _items, _links, _meta; X-Total-Count', () => {
    const page = wrapEve([Buffer.from('[{"_id":"a"}]')], { links: { self: { href: 'notes' } }, meta: { page: 1, max_results: 10, total: 1 }, totalHeader: 1 });
    assert.deepEqual(page.headers, { 'X-Total-Count': '1' });
    assert.equal(bytes(page.parts).toString(), '{"_items":[{"_id":"a"}],"_links":{"self":{"href":"notes"}},"_meta":{"page":1,"max_results":10,"total":1}}');
  });

  test("notes with _id for id: the same bytes otherwise; content faults find the _id", () => {
    for (const idKind of ['string', 'int']) {
      const plain = renderNote(7, 3, idKind);
      assert.equal(renderNote(7, 3, idKind, 'eve'), `{"_id"${plain.slice('{"id"'.length)}`);
    }
    const eveItems = Buffer.from(`[${renderNote(7, 0, 'string', 'eve')},${renderNote(7, 1, 'string', 'eve')}]`);
    assert.equal(firstNoteId(eveItems, '_id').toString(), '"n0"');
    assert.equal(firstNoteId(eveItems), null);
    const duplicated = JSON.parse(bytes(applyContentFaults(eveItems, parseFaults('duplicate-id'), Buffer.from('"n0"'), '_id')));
    assert.deepEqual(duplicated.map((n) => n._id), ['n0', 'n0']);
  });
});
