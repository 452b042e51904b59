// End-to-end tests: the offset, page, keyset and header styles (--count); the server runs as a child
// process on port 0 and is asked over HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower
// bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { scanNotes } from '../notes/scan.mjs';
import { json, JSON_TYPE, nextLink, rawGet, request, startServer, walk } from '../testing/harness.mjs';
import { arrayAt, contract } from '../testing/notes-dir.mjs';

describe('offset, page, keyset and header styles (--count)', () => {
  const N = 25;
  const allIds = Array.from({ length: N }, (_, i) => `n${i}`);
  let server;
  let base;
  const rawNotes = new Map(); // id -> the note's bytes, from the contract pages

  /** The notes array of a response body under `key`, and its notes' bytes. */
  function itemsOf(body, key) {
    const start = body.indexOf(`"${key}":[`) + key.length + 3;
    const items = body.subarray(...arrayAt(body, start));
    return { items, notes: scanNotes(items).map((note) => items.subarray(note.start, note.end).toString()) };
  }
  const KEYS = { offset: 'results', page: 'results', keyset: 'data', header: 'notes' };
  const get = (query, headers) => request(`${base}?${query}`, { headers });
  const statusOf = async (query) => (await get(query)).status;

  before(async () => {
    server = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet']);
    base = server.url;
    for (const page of await walk(base, 'contract')) {
      for (const note of itemsOf(page.res.body, 'notes').notes) rawNotes.set(JSON.parse(note).id, note);
    }
    assert.deepEqual([...rawNotes.keys()], allIds);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  for (const style of ['offset', 'page', 'keyset', 'header']) {
    test(`${style}: following the next page yields n0..n${N - 1} once, in order, each note the same bytes as in contract style`, async () => {
      for (const limit of style === 'header' ? [null] : [null, 1, 7, 10, 24, 25, 1000]) {
        const param = style === 'page' ? 'per_page' : 'limit';
        const start = `${base}?style=${style}${limit === null ? '' : `&${param}=${limit}`}`;
        const pages = await walk(start, style, {}, 60);
        const size = limit ?? 10;
        assert.deepEqual(pages.map((p) => p.ids.length), Array.from({ length: Math.ceil(N / size) }, (_, i) => Math.min(size, N - i * size)), `${style} ${limit}`);
        assert.deepEqual(pages.flatMap((p) => p.ids), allIds, `${style} limit ${limit}`);
        for (const page of pages) {
          const { items, notes } = itemsOf(page.res.body, KEYS[style]);
          assert.deepEqual(notes, page.ids.map((id) => rawNotes.get(id)));
          assert.equal(items.toString(), `[${notes.join(',')}]`);
        }
      }
    });
  }

  test('the style by flag and by header; URLs carry only what the query chose', async () => {
    const flagged = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--style', 'offset', '--quiet']);
    try {
      const pages = await walk(flagged.url, 'offset');
      assert.deepEqual(pages.flatMap((p) => p.ids), allIds);
      // No limit in the request, none in the links: a walk from /notes changes only the offset.
      assert.deepEqual(pages.map((p) => json(p.res).next), [`${flagged.url}?offset=10`, `${flagged.url}?offset=20`, null]);
      assert.equal(json((await request(`${flagged.url}?limit=10`))).next, `${flagged.url}?offset=10&limit=10`);
      const contract = await request(flagged.url, { headers: { 'X-Notes-Style': 'contract' } });
      assert.deepEqual(Object.keys(json(contract)), ['notes', 'next_cursor']);
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
    const page = await get('per_page=5&page=2', { 'X-Notes-Style': 'page' });
    assert.deepEqual(json(page).results.map((n) => n.id), ['n5', 'n6', 'n7', 'n8', 'n9']);
    assert.equal(json(page).next, `${base}?page=3&per_page=5`);
    const carried = json(await get('style=offset&limit=5&foo=bar&totals=count&fault=delay:1'));
    assert.equal(carried.next, `${base}?offset=5&limit=5&style=offset&totals=count&fault=delay%3A1`);
  });

  test('offset: computing offsets directly reaches every note once; previous links; past the end is an empty page', async () => {
    for (const limit of [1, 4, 10, 13]) {
      const ids = [];
      for (let offset = 0; offset < N; offset += limit) {
        const res = await get(`style=offset&offset=${offset}&limit=${limit}`);
        const body = json(res);
        assert.deepEqual(Object.keys(body), ['count', 'next', 'previous', 'results']);
        assert.equal(body.count, N);
        assert.equal(body.next, offset + limit < N ? `${base}?offset=${offset + limit}&limit=${limit}&style=offset` : null);
        assert.equal(body.previous, offset === 0 ? null : `${base}?offset=${Math.max(0, offset - limit)}&limit=${limit}&style=offset`);
        ids.push(...body.results.map((n) => n.id));
      }
      assert.deepEqual(ids, allIds, `limit ${limit}`);
    }
    // Any offset, not only multiples of the limit.
    assert.deepEqual(json(await get('style=offset&offset=3&limit=4')).results.map((n) => n.id), ['n3', 'n4', 'n5', 'n6']);
    assert.equal(json(await get('style=offset&offset=3&limit=4')).previous, `${base}?offset=0&limit=4&style=offset`);
    for (const offset of [N, N + 1, 1000]) {
      const res = await get(`style=offset&offset=${offset}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-total-count'], String(N));
      assert.deepEqual(json(res), { count: N, next: null, previous: `${base}?offset=${offset - 10}&style=offset`, results: [] });
    }
  });

  test('page: computing pages directly reaches every note once; Link next and last, X-Total-Count; past the end is empty', async () => {
    for (const perPage of [1, 4, 10, 13]) {
      const ids = [];
      const last = Math.ceil(N / perPage);
      for (let p = 1; p <= last; p++) {
        const res = await get(`style=page&page=${p}&per_page=${perPage}`);
        const body = json(res);
        assert.deepEqual(Object.keys(body), ['count', 'total_pages', 'next', 'previous', 'results']);
        assert.equal(body.count, N);
        assert.equal(body.total_pages, last);
        assert.equal(res.headers['x-total-count'], String(N));
        const url = (n) => `${base}?page=${n}&per_page=${perPage}&style=page`;
        assert.equal(body.next, p < last ? url(p + 1) : null);
        assert.equal(body.previous, p > 1 ? url(p - 1) : null);
        assert.equal(res.headers.link, [...(p < last ? [`<${url(p + 1)}>; rel="next"`] : []), `<${url(last)}>; rel="last"`].join(', '));
        ids.push(...body.results.map((n) => n.id));
      }
      assert.deepEqual(ids, allIds, `per_page ${perPage}`);
    }
    const beyond = await get('style=page&page=4');
    assert.equal(beyond.status, 200);
    assert.deepEqual(json(beyond), { count: N, total_pages: 3, next: null, previous: `${base}?page=3&style=page`, results: [] });
    assert.equal(beyond.headers.link, `<${base}?page=3&style=page>; rel="last"`);
  });

  test('keyset: starting after any id; after the last one, an empty page', async () => {
    const body = json(await get('style=keyset&starting_after=n3&limit=4'));
    assert.deepEqual(Object.keys(body), ['object', 'data', 'has_more', 'url']);
    assert.deepEqual(body.data.map((n) => n.id), ['n4', 'n5', 'n6', 'n7']);
    assert.equal(body.has_more, true);
    assert.equal(body.object, 'list');
    assert.equal(body.url, '/notes');
    assert.deepEqual(json(await get('style=keyset&starting_after=n20')).data.map((n) => n.id), ['n21', 'n22', 'n23', 'n24']);
    assert.equal(json(await get('style=keyset&starting_after=n20')).has_more, false);
    assert.equal(json(await get('style=keyset&starting_after=n14&limit=10')).has_more, false);
    assert.deepEqual(json(await get('style=keyset&starting_after=n24')), { object: 'list', data: [], has_more: false, url: '/notes' });
    const res = await get('style=keyset');
    assert.equal(res.headers['x-total-count'], undefined);
    assert.equal(res.headers.link, undefined);
  });

  test('totals per request: totals=none, each one alone', async () => {
    const keys = async (query) => {
      const res = await get(query);
      return { keys: Object.keys(json(res)), header: res.headers['x-total-count'], link: res.headers.link };
    };
    const next = `<${base}?page=2&style=page&totals=none>; rel="next"`;
    assert.deepEqual(await keys('style=page&totals=none'), { keys: ['next', 'previous', 'results'], header: undefined, link: next });
    assert.deepEqual(await keys('style=offset&totals=none'), { keys: ['next', 'previous', 'results'], header: undefined, link: undefined });
    assert.deepEqual((await keys('style=page&totals=count')).keys, ['count', 'next', 'previous', 'results']);
    assert.deepEqual((await keys('style=page&totals=pages')).keys, ['total_pages', 'next', 'previous', 'results']);
    assert.equal((await keys('style=page&totals=header')).header, String(N));
    assert.equal((await keys('style=page&page=3&totals=header')).link, undefined);
    assert.equal((await keys('style=page&page=3&totals=link')).link, `<${base}?page=3&style=page&totals=link>; rel="last"`);
    assert.deepEqual(await keys('style=offset&totals=pages,link'), { keys: ['next', 'previous', 'results'], header: undefined, link: undefined });
    // The next URLs keep totals=, so a walk keeps them off.
    const pages = await walk(`${base}?style=offset&totals=none&limit=7`, 'offset');
    assert.deepEqual(pages.flatMap((p) => p.ids), allIds);
    assert.ok(pages.every((p) => !('count' in json(p.res)) && p.res.headers['x-total-count'] === undefined));
  });

  test('--totals and --total-lie: the announced total is off, the notes and next links are not', async () => {
    const lying = await startServer(['--count', String(N), '--page-size', '5', '--seed', '7', '--total-lie', '4', '--quiet']);
    const modest = await startServer(['--count', String(N), '--page-size', '5', '--seed', '7', '--total-lie=-100', '--totals', 'count,pages', '--quiet']);
    try {
      const first = await request(`${lying.url}?style=page`);
      assert.equal(json(first).count, N + 4);
      assert.equal(json(first).total_pages, 6);
      assert.equal(first.headers['x-total-count'], String(N + 4));
      assert.match(first.headers.link, /\?page=6&style=page>; rel="last"$/);
      const pages = await walk(`${lying.url}?style=page`, 'page');
      assert.deepEqual(pages.flatMap((p) => p.ids), allIds);
      assert.equal(pages.length, 5);
      assert.equal(json(await request(`${lying.url}?style=offset`)).count, N + 4);
      const sixth = json(await request(`${lying.url}?style=page&page=6`));
      assert.deepEqual([sixth.results, sixth.next], [[], null]);

      const none = await request(`${modest.url}?style=page`);
      assert.deepEqual(Object.keys(json(none)), ['count', 'total_pages', 'next', 'previous', 'results']);
      assert.deepEqual([json(none).count, json(none).total_pages], [0, 1]);
      assert.equal(none.headers['x-total-count'], undefined);
      assert.equal(none.headers.link, `<${modest.url}?page=2&style=page>; rel="next"`);
      assert.deepEqual((await walk(`${modest.url}?style=page`, 'page')).flatMap((p) => p.ids), allIds);
      // The request's totals= wins over --totals.
      assert.equal((await request(`${modest.url}?style=page&totals=header`)).headers['x-total-count'], '0');
    } finally {
      assert.equal((await lying.stop()).code, 0);
      assert.equal((await modest.stop()).code, 0);
    }
  });

  test('limits are capped at --max-limit (default 1000, or --page-size if larger)', async () => {
    const capped = await startServer(['--count', String(N), '--page-size', '5', '--max-limit', '8', '--quiet']);
    const big = await startServer(['--count', '2500', '--page-size', '1200', '--quiet']);
    try {
      const offset = json(await request(`${capped.url}?style=offset&limit=20`));
      assert.equal(offset.results.length, 8);
      assert.equal(offset.next, `${capped.url}?offset=8&limit=8&style=offset`);
      const page = json(await request(`${capped.url}?style=page&per_page=9999999999999999999999&page=2`));
      assert.deepEqual(page.results.map((n) => n.id), ['n8', 'n9', 'n10', 'n11', 'n12', 'n13', 'n14', 'n15']);
      assert.equal(page.total_pages, 4);
      assert.equal(json(await request(`${capped.url}?style=keyset&limit=100`)).data.length, 8);
      assert.equal(json(await request(`${capped.url}?style=offset`)).results.length, 5);
      assert.equal(json(await request(`${big.url}?style=offset`)).results.length, 1200);
      assert.equal(json(await request(`${big.url}?style=offset&limit=2000`)).results.length, 1200);
      assert.equal(json(await request(`${big.url}?style=page&per_page=1000`)).results.length, 1000);
    } finally {
      assert.equal((await capped.stop()).code, 0);
      assert.equal((await big.stop()).code, 0);
    }
    assert.equal(json(await get('style=offset&limit=1001')).results.length, N);
  });

  test('bad parameters: 400 with the error JSON', async () => {
    for (const [query, error, message] of [
      ['style=offset&offset=-1', 'bad-request', "offset must be an integer of at least 0, not '-1'"],
      ['style=offset&offset=2.5', 'bad-request', "offset must be an integer of at least 0, not '2.5'"],
      ['style=offset&limit=0', 'bad-request', "limit must be an integer of at least 1, not '0'"],
      ['style=offset&limit=many', 'bad-request', "limit must be an integer of at least 1, not 'many'"],
      ['style=offset&offset=1&offset=2', 'bad-request', 'more than one offset'],
      ['style=page&page=0', 'bad-request', "page must be an integer of at least 1, not '0'"],
      ['style=page&page=-2', 'bad-request', "page must be an integer of at least 1, not '-2'"],
      ['style=page&per_page=0', 'bad-request', "per_page must be an integer of at least 1, not '0'"],
      ['style=page&totals=all', 'bad-request', "totals= takes a comma-separated list of count, header, link, pages, or none; not 'all'"],
      ['style=keyset&limit=0', 'bad-request', "limit must be an integer of at least 1, not '0'"],
      ['style=keyset&starting_after=n25', 'unknown-cursor', 'no note has this id'],
      ['style=keyset&starting_after=nope', 'unknown-cursor', 'no note has this id'],
      ['style=keyset&starting_after=', 'unknown-cursor', 'no note has this id'],
      ['style=keyset&starting_after=new0', 'unknown-cursor', 'no note has this id'],
      ['style=header&cursor=nope', 'unknown-cursor', 'no page has this cursor'],
      ['style=keyset&fault=cycle', 'bad-request', "fault 'cycle' cannot work in keyset style: the next page starts after the last id served, so nothing can point back"],
      ['style=header&fault=shift:2@2', 'bad-request', "fault 'shift:2@2' works in the offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles (and drf with --id-kind int) only, not header"],
      ['fault=shift:2@2', 'bad-request', "fault 'shift:2@2' works in the offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles (and drf with --id-kind int) only, not contract"],
      ['style=drf&fault=shift:2@2', 'bad-request', "fault 'shift:2@2' works in the offset, page, keyset, jsonapi, next-page, ogc, x-pagination, page-echo, offset-echo, eve, dynamodb styles (and drf with --id-kind int) only, not drf"],
      ['style=offset&fault=shift:2@2x1', 'bad-request', "fault 'shift' acts once and takes no xN ('shift:2@2x1')"],
      ['style=offset&fault=shift', 'bad-request', "fault 'shift' needs the number of notes to insert, as in shift:5@2 ('shift')"],
    ]) {
      const res = await get(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(json(res), { error, message }, query);
    }
    // Other styles ignore the list parameters, and the list styles the cursor.
    assert.equal(await statusOf('offset=-1&page=0'), 200);
    assert.equal(await statusOf('style=offset&cursor=nope'), 200);
  });

  test('--count 0: an empty list in every style', async () => {
    const empty = await startServer(['--count', '0', '--quiet']);
    try {
      const at = (query) => request(`${empty.url}?${query}`);
      assert.deepEqual(json(await at('style=offset')), { count: 0, next: null, previous: null, results: [] });
      const page = await at('style=page');
      assert.deepEqual(json(page), { count: 0, total_pages: 1, next: null, previous: null, results: [] });
      assert.equal(page.headers.link, `<${empty.url}?page=1&style=page>; rel="last"`);
      assert.equal(page.headers['x-total-count'], '0');
      assert.deepEqual(json(await at('style=keyset')), { object: 'list', data: [], has_more: false, url: '/notes' });
      const header = await at('style=header');
      assert.equal(header.body.toString(), '{"notes":[]}');
      assert.equal(header.headers['x-next-cursor'], undefined);
    } finally {
      assert.equal((await empty.stop()).code, 0);
    }
  });

  // The second page of each style, in its own terms, and a request for its first page.
  const SECOND = {
    offset: ['style=offset&offset=10', 'style=offset&offset=15', 'style=offset&offset=5&limit=5', 'style=offset&offset=19&limit=10'],
    page: ['style=page&page=2', 'style=page&page=2&per_page=3'],
    keyset: ['style=keyset&starting_after=n9', 'style=keyset&starting_after=n4&limit=5', 'style=keyset&starting_after=n18'],
  };
  const FIRST = {
    offset: ['style=offset', 'style=offset&offset=9', 'style=offset&offset=4&limit=5', 'style=offset&offset=20&limit=10'],
    page: ['style=page&page=1', 'style=page&page=3&per_page=3'],
    keyset: ['style=keyset', 'style=keyset&starting_after=n8', 'style=keyset&starting_after=n3&limit=5'],
  };
  const headerSecond = async () => `style=header&cursor=${encodeURIComponent((await get('style=header')).headers['x-next-cursor'])}`;

  test('503@2, with @2 the second page in each style\'s terms', async () => {
    const SECOND_ALL = { ...SECOND, header: [await headerSecond()] };
    const FIRST_ALL = { ...FIRST, header: ['style=header'] };
    for (const [style, queries] of Object.entries(SECOND_ALL)) {
      for (const query of queries) {
        const res = await get(`${query}&fault=503@2`);
        assert.equal(res.status, 503, query);
        assert.equal(res.headers['retry-after'], '1');
        assert.deepEqual(json(res), { error: 'injected', status: 503 });
      }
      // Not on other pages (a different @PAGE of the same spec, so a different spec's counter).
      for (const query of FIRST_ALL[style]) assert.equal(await statusOf(`${query}&fault=503@2`), 200, query);
      assert.equal(await statusOf(`${queries[0]}&fault=503@3`), 200);
    }
    // Page 3 in keyset terms: the first note served is n20 (limit 10).
    assert.equal(await statusOf('style=keyset&starting_after=n19&fault=503@3'), 503);
    assert.equal(await statusOf('style=page&page=7&per_page=2&fault=503@7'), 503);
    // Past the end is still a page in each style's terms.
    assert.equal(await statusOf('style=offset&offset=40&limit=10&fault=503@5'), 503);
  });

  test('duplicate-id@2: the last note of the second page takes the first id, in each style', async () => {
    for (const query of [SECOND.offset[0], SECOND.page[0], SECOND.keyset[0], await headerSecond()]) {
      const style = new URLSearchParams(query).get('style');
      const plain = await get(query);
      const res = await get(`${query}&fault=duplicate-id@2`);
      const ids = json(res)[KEYS[style]].map((n) => n.id);
      assert.deepEqual(ids, [...json(plain)[KEYS[style]].map((n) => n.id).slice(0, -1), 'n0'], query);
      // Only the id changed (the URLs also carry the fault).
      assert.equal(res.body.toString().replaceAll('&fault=duplicate-id%402', ''), plain.body.toString().replace('"id":"n19"', '"id":"n0"'), query);
    }
    const first = json(await get('style=offset&fault=duplicate-id@2'));
    assert.deepEqual(first.results.map((n) => n.id), allIds.slice(0, 10));
  });

  test('truncate@2: the full Content-Length, half the body, in each style', async () => {
    for (const query of [SECOND.offset[0], SECOND.page[0], SECOND.keyset[0], await headerSecond()]) {
      // The same page with a fault that does not act here: its URLs carry a spec of the same length.
      const full = (await get(`${query}&fault=truncate@3`)).body;
      const { head, body } = await rawGet(`${base}?${query}&fault=truncate@2`);
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, new RegExp(`\r\ncontent-length: ${full.length}\r\n`, 'i'), query);
      assert.equal(body.toString('latin1'), full.subarray(0, Math.floor(full.length / 2)).toString('latin1').replaceAll('truncate%403', 'truncate%402'), query);
      await assert.rejects(get(`${query}&fault=truncate@2`), { code: 'ECONNRESET' });
    }
    const whole = (await get('style=offset&fault=truncate@2')).body;
    assert.doesNotThrow(() => JSON.parse(whole));
  });

  test('content faults on list pages: huge-title, deep', async () => {
    const huge = json(await get('style=keyset&starting_after=n9&fault=huge-title:12@2'));
    assert.equal(huge.data[0].title, 'huge title h');
    const deep = json(await get('style=page&page=2&fault=deep:3@2'));
    assert.deepEqual(deep.results[0].deep, [[[]]]);
    assert.deepEqual(deep.results.map((n) => n.id), allIds.slice(10, 20));
  });

  test('cycle: next points back to the previous page in offset and page; keyset refuses it', async () => {
    const offset = json(await get('style=offset&offset=20&fault=cycle'));
    assert.equal(offset.next, `${base}?offset=10&style=offset&fault=cycle`);
    assert.equal(offset.next, offset.previous);
    const page = await get('style=page&page=2&fault=cycle');
    assert.equal(json(page).next, `${base}?page=1&style=page&fault=cycle`);
    assert.equal(nextLink(page.headers.link), json(page).next);
    // Page 1 has no previous page and is left alone.
    assert.equal(json(await get('style=offset&fault=cycle')).next, `${base}?offset=10&style=offset&fault=cycle`);
    // A walk with cycle@3 loops between pages 2 and 3.
    await assert.rejects(walk(`${base}?style=page&fault=cycle@3`, 'page', {}, 10), /does not end/);
    assert.equal(await statusOf('style=keyset&fault=cycle@3'), 400);
    assert.equal((await get('style=keyset', { 'X-Notes-Fault': 'cycle' })).status, 400);
  });

  test('redirect: the target serves the list styles too', async () => {
    for (const query of [SECOND.offset[0], SECOND.page[0], SECOND.keyset[0], await headerSecond()]) {
      const res = await get(`${query}&fault=redirect@2`);
      assert.equal(res.status, 302, query);
      const followed = await request(res.headers.location);
      assert.equal(followed.status, 200);
      const style = new URLSearchParams(query).get('style');
      assert.deepEqual(json(followed)[KEYS[style]].map((n) => n.id), allIds.slice(10, 20), query);
    }
    const followed = json(await request((await get('style=offset&offset=10&fault=redirect@2')).headers.location));
    // Its next URL names the main listener, with the query as sent.
    assert.equal(followed.next, `${base}?offset=20&style=offset&fault=redirect%402`);
  });

  test('shift:3@2 in offset style: from page 2 on, three new notes first, so page 2 repeats the end of page 1', async () => {
    const pages = await walk(`${base}?style=offset&fault=shift:3@2`, 'offset');
    const ids = pages.flatMap((p) => p.ids);
    assert.deepEqual(pages.map((p) => p.ids[0]), ['n0', 'n7', 'n17']);
    assert.deepEqual(ids, [...allIds.slice(0, 10), ...allIds.slice(7, 17), ...allIds.slice(17)]);
    assert.deepEqual(pages.map((p) => json(p.res).count), [N, N + 3, N + 3]);
    assert.deepEqual(pages.map((p) => p.res.headers['x-total-count']), [String(N), String(N + 3), String(N + 3)]);
    // From now on, every request with this fault sees the new notes; the others do not.
    const now = json(await get('style=offset&fault=shift:3@2&limit=5'));
    assert.deepEqual(now.results.map((n) => n.id), ['new0', 'new1', 'new2', 'n0', 'n1']);
    assert.deepEqual(Object.keys(now.results[0]), ['id', 'title', 'rank', 'pinned']);
    assert.equal(typeof now.results[0].title, 'string');
    assert.deepEqual(json(await get('style=page&per_page=5&fault=shift:3@2')).results.map((n) => n.id), ['new0', 'new1', 'new2', 'n0', 'n1']);
    assert.deepEqual(json(await get('style=offset&limit=3')).results.map((n) => n.id), ['n0', 'n1', 'n2']);
    // The keyset style finds the new ids too.
    assert.deepEqual(json(await get('style=keyset&limit=2&starting_after=new1&fault=shift:3@2')).data.map((n) => n.id), ['new2', 'n0']);
  });

  test('shift in page and keyset style; a keyset walk is not disturbed', async () => {
    const pages = await walk(`${base}?style=page&fault=shift:2@3`, 'page');
    assert.deepEqual(pages.map((p) => p.ids[0]), ['n0', 'n10', 'n18']);
    assert.deepEqual(pages.map((p) => json(p.res).total_pages), [3, 3, 3]);
    assert.deepEqual(pages.map((p) => json(p.res).count), [N, N, N + 2]);
    const keyset = await walk(`${base}?style=keyset&limit=5&fault=shift:4@2`, 'keyset');
    assert.deepEqual(keyset.flatMap((p) => p.ids), allIds);
    assert.deepEqual(json(await get('style=keyset&limit=5&fault=shift:4@2')).data.map((n) => n.id), ['new0', 'new1', 'new2', 'new3', 'n0']);
  });
});
