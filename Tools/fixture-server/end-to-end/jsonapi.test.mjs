// End-to-end tests: the jsonapi style, and the size cap (--max-limit) of the offset, page, drf and jsonapi
// styles; the server runs as a child process on port 0 and is asked over HTTP (testing/harness.mjs). Run
// with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { json, JSONAPI_TYPE, plainNote, rawGet, request, startServer, walk } from '../testing/harness.mjs';
import { makeNotesDir } from '../testing/notes-dir.mjs';

describe('jsonapi style (--count)', () => {
  const N = 25;
  let server;
  let base;
  let contractNotes;
  const get = (query, headers) => request(`${base}?${query}`, { headers });

  before(async () => {
    server = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet']);
    base = server.url;
    contractNotes = (await walk(base, 'contract')).flatMap((p) => p.notes);
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  test('the body of djangorestframework-jsonapi: links, data of resource objects, meta.pagination; its media type', async () => {
    const res = await get('style=jsonapi');
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], JSONAPI_TYPE);
    assert.equal(res.headers['x-total-count'], undefined);
    assert.equal(res.headers.link, undefined);
    const body = json(res);
    assert.deepEqual(Object.keys(body), ['links', 'data', 'meta']);
    assert.deepEqual(body.links, {
      first: `${base}?page%5Bnumber%5D=1&style=jsonapi`,
      last: `${base}?page%5Bnumber%5D=3&style=jsonapi`,
      next: `${base}?page%5Bnumber%5D=2&style=jsonapi`,
      prev: null,
    });
    assert.deepEqual(body.meta, { pagination: { page: 1, pages: 3, count: N } });
    assert.equal(body.data.length, 10);
    for (const [i, resource] of body.data.entries()) {
      assert.deepEqual(Object.keys(resource), ['type', 'id', 'attributes']);
      assert.equal(resource.type, 'notes');
      assert.equal(resource.id, `n${i}`);
      assert.deepEqual(plainNote(resource), contractNotes[i]);
    }
    const pages = await walk(`${base}?style=jsonapi`, 'jsonapi');
    assert.deepEqual(pages.map((p) => p.ids.length), [10, 10, 5]);
    assert.deepEqual(pages.flatMap((p) => p.notes).map(plainNote), contractNotes);
    assert.deepEqual(pages.map((p) => json(p.res).meta.pagination.page), [1, 2, 3]);
    assert.deepEqual(json(pages[2].res).links, {
      first: `${base}?page%5Bnumber%5D=1&style=jsonapi`,
      last: `${base}?page%5Bnumber%5D=3&style=jsonapi`,
      next: null,
      prev: `${base}?page%5Bnumber%5D=2&style=jsonapi`,
    });
    // The style by flag: the printed URL is page 1.
    const flagged = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--style', 'jsonapi', '--quiet']);
    try {
      const walked = await walk(flagged.url, 'jsonapi');
      assert.deepEqual(walked.map((p) => json(p.res).links.next), [`${flagged.url}?page%5Bnumber%5D=2`, `${flagged.url}?page%5Bnumber%5D=3`, null]);
      assert.deepEqual(walked.flatMap((p) => p.notes).map(plainNote), contractNotes);
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
  });

  test('page[number] and page[size], raw or percent-encoded; links percent-encoded and sorted, as the library writes them', async () => {
    const raw = await get('style=jsonapi&page[number]=2&page[size]=4');
    assert.match(new URL(`${base}?page[number]=2`).search, /\[number\]/, 'the brackets go raw on the wire');
    for (const query of ['style=jsonapi&page%5Bnumber%5D=2&page%5Bsize%5D=4', 'page%5bsize%5d=4&style=jsonapi&page[number]=2']) {
      assert.deepEqual(json(await get(query)), json(raw), query);
    }
    const body = json(raw);
    assert.deepEqual(body.data.map((r) => r.id), ['n4', 'n5', 'n6', 'n7']);
    assert.deepEqual(body.links, {
      first: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=4&style=jsonapi`,
      last: `${base}?page%5Bnumber%5D=7&page%5Bsize%5D=4&style=jsonapi`,
      next: `${base}?page%5Bnumber%5D=3&page%5Bsize%5D=4&style=jsonapi`,
      prev: `${base}?page%5Bnumber%5D=1&page%5Bsize%5D=4&style=jsonapi`,
    });
    assert.deepEqual(body.meta.pagination, { page: 2, pages: 7, count: N });
    const carried = json(await get('style=jsonapi&page[size]=4&fault=delay:1&compress=none&totals=count,pages,link'));
    assert.equal(carried.links.next, `${base}?compress=none&fault=delay%3A1&page%5Bnumber%5D=2&page%5Bsize%5D=4&style=jsonapi&totals=count%2Cpages%2Clink`);
    for (const size of [1, 7, 25, 100]) {
      const pages = await walk(`${base}?style=jsonapi&page[size]=${size}`, 'jsonapi', {}, 30);
      assert.deepEqual(pages.flatMap((p) => p.ids), contractNotes.map((n) => n.id), `page[size]=${size}`);
    }
    assert.deepEqual(json(await get('style=jsonapi&page[number]=last')), json(await get('style=jsonapi&page[number]=3')));
    // A page number that names no page is 404, as the library answers it; a bad size is the default.
    for (const page of ['4', '0', '-1', 'abc']) {
      const beyond = await get(`style=jsonapi&page[number]=${page}`);
      assert.equal(beyond.status, 404, page);
      assert.equal(beyond.headers['content-type'], JSONAPI_TYPE);
      assert.deepEqual(json(beyond), { errors: [{ detail: 'Invalid page.', status: '404', source: { pointer: '/data' }, code: 'not_found' }] });
    }
    for (const size of ['0', '-3', 'big']) {
      const res = json(await get(`style=jsonapi&page%5Bsize%5D=${size}`));
      assert.equal(res.data.length, 10, size);
      assert.equal(res.links.next, `${base}?page%5Bnumber%5D=2&page%5Bsize%5D=${size}&style=jsonapi`);
    }
    const empty = await startServer(['--count', '0', '--quiet']);
    try {
      const page1 = await request(`${empty.url}?style=jsonapi`);
      assert.equal(page1.status, 200);
      assert.deepEqual(json(page1), {
        links: { first: `${empty.url}?page%5Bnumber%5D=1&style=jsonapi`, last: `${empty.url}?page%5Bnumber%5D=1&style=jsonapi`, next: null, prev: null },
        data: [],
        meta: { pagination: { page: 1, pages: 1, count: 0 } },
      });
      assert.equal((await request(`${empty.url}?style=jsonapi&page[number]=2`)).status, 404);
    } finally {
      assert.equal((await empty.stop()).code, 0);
    }
  });

  test('406 unless Accept admits application/vnd.api+json', async () => {
    for (const accept of ['application/json', 'text/html', '', 'application/json, text/*;q=0.5', 'application/vnd.api+jsonp']) {
      const res = await get('style=jsonapi', { Accept: accept });
      assert.equal(res.status, 406, accept);
      assert.equal(res.headers['content-type'], JSONAPI_TYPE);
      assert.deepEqual(json(res), { errors: [{ detail: 'Could not satisfy the request Accept header.', status: '406', source: { pointer: '/data' }, code: 'not_acceptable' }] });
    }
    for (const accept of [undefined, '*/*', 'application/*', JSONAPI_TYPE, 'text/html, application/vnd.api+json;q=0.9', 'text/html,*/*;q=0.8']) {
      const res = await get('style=jsonapi', accept === undefined ? {} : { Accept: accept });
      assert.equal(res.status, 200, accept);
    }
    // Negotiation comes before the query is checked, and only the jsonapi style negotiates.
    assert.equal((await get('style=jsonapi&foo=1', { Accept: 'application/json' })).status, 406);
    assert.equal((await get('style=page', { Accept: 'text/html' })).status, 200);
    assert.equal((await get('', { Accept: 'text/html', 'X-Notes-Style': 'jsonapi' })).status, 406);
    // The redirect target negotiates too.
    const redirected = await get('style=jsonapi&fault=redirect');
    assert.equal(redirected.status, 302);
    assert.equal((await request(redirected.headers.location, { headers: { Accept: 'application/json' } })).status, 406);
    assert.equal((await request(redirected.headers.location)).status, 200);
  });

  test('400 for query parameters the library refuses; the server\'s own are fine', async () => {
    for (const [query, detail] of [
      ['style=jsonapi&foo=1', 'invalid query parameter: foo'],
      ['style=jsonapi&cursor=abc', 'invalid query parameter: cursor'],
      ['style=jsonapi&page_size=5', 'invalid query parameter: page_size'],
      ['style=jsonapi&per_page=5', 'invalid query parameter: per_page'],
      ['style=jsonapi&limit=5&offset=0', 'invalid query parameter: limit'],
      ['style=jsonapi&page[size]=2&page%5Bsize%5D=3', 'repeated query parameter not allowed: page[size]'],
      ['style=jsonapi&totals=every', "totals= takes a comma-separated list of count, header, link, pages, or none; not 'every'"],
    ]) {
      const res = await get(query);
      assert.equal(res.status, 400, query);
      assert.equal(res.headers['content-type'], JSONAPI_TYPE);
      assert.deepEqual(json(res), { errors: [{ detail, status: '400', source: { pointer: '/data' }, code: 'invalid' }] }, query);
    }
    for (const query of ['style=jsonapi&fault=delay:1&fault=delay:2&totals=count&compress=gzip', 'style=jsonapi&sort=-id&include=x&fields[notes]=title&filter[a]=1&filter[a]=2']) {
      assert.equal((await get(query)).status, 200, query);
    }
    // The server's own errors keep their form.
    const style = await get('style=jsonapi&fault=explode');
    assert.equal(style.status, 400);
    assert.equal(json(style).error, 'bad-request');
  });

  test('totals: meta.pagination.count, .pages and links.last, each by its name', async () => {
    const of = async (query) => json(await get(`style=jsonapi&${query}`));
    const none = await of('totals=none');
    assert.deepEqual(Object.keys(none.links), ['first', 'next', 'prev']);
    assert.deepEqual(none.meta, { pagination: { page: 1 } });
    assert.deepEqual((await of('totals=count')).meta.pagination, { page: 1, count: N });
    assert.deepEqual((await of('totals=pages')).meta.pagination, { page: 1, pages: 3 });
    assert.deepEqual(Object.keys((await of('totals=link')).links), ['first', 'last', 'next', 'prev']);
    assert.deepEqual((await of('totals=header')).meta.pagination, { page: 1 });
    const pages = await walk(`${base}?style=jsonapi&totals=none`, 'jsonapi');
    assert.deepEqual(pages.flatMap((p) => p.ids), contractNotes.map((n) => n.id));
    const lying = await startServer(['--count', String(N), '--page-size', '10', '--seed', '7', '--total-lie', '10', '--quiet']);
    try {
      const body = json(await request(`${lying.url}?style=jsonapi`));
      assert.deepEqual(body.meta.pagination, { page: 1, pages: 4, count: N + 10 });
      assert.equal(body.links.last, `${lying.url}?page%5Bnumber%5D=4&style=jsonapi`);
      assert.equal((await walk(`${lying.url}?style=jsonapi`, 'jsonapi')).length, 3);
      // A client that believes the announced pages asks for a page that is not there.
      assert.equal((await request(body.links.last)).status, 404);
    } finally {
      assert.equal((await lying.stop()).code, 0);
    }
  });

  test('faults: @PAGE is page[number]; duplicate-id, huge-title, deep, cycle, shift and truncate', async () => {
    assert.equal((await get('style=jsonapi&page[number]=2&fault=503@2')).status, 503);
    assert.equal((await get('style=jsonapi&page[number]=2&page[size]=3&fault=503@2')).status, 503);
    assert.equal((await get('style=jsonapi&fault=503@2')).status, 200);
    const second = json(await get('style=jsonapi&page[number]=2&fault=duplicate-id@2,huge-title:9@2,deep:2@2'));
    assert.deepEqual(second.data.map((r) => r.id), [...contractNotes.slice(10, 19).map((n) => n.id), 'n0']);
    assert.equal(second.data[0].attributes.title, 'huge titl');
    assert.deepEqual(second.data[0].deep, [[]]);
    const cycled = json(await get('style=jsonapi&page[number]=3&fault=cycle'));
    assert.equal(cycled.links.next, cycled.links.prev);
    const pages = await walk(`${base}?style=jsonapi&fault=shift:2@2`, 'jsonapi');
    assert.deepEqual(pages.flatMap((p) => p.ids), [...contractNotes.slice(0, 10), ...contractNotes.slice(8)].map((n) => n.id));
    assert.deepEqual(json(await get('style=jsonapi&page[size]=3&fault=shift:2@2')).data.map((r) => r.id), ['new0', 'new1', 'n0']);
    const full = (await get('style=jsonapi&page[number]=2&fault=truncate@3')).body;
    const { head, body } = await rawGet(`${base}?style=jsonapi&page[number]=2&fault=truncate@2`);
    assert.match(head, new RegExp(`\r\ncontent-length: ${full.length}\r\n`, 'i'));
    assert.equal(body.length, Math.floor(full.length / 2));
  });

  test('needs generated notes: a directory refuses it', async () => {
    const fixture = makeNotesDir();
    const dirServer = await startServer(['--dir', fixture.dir, '--quiet']);
    try {
      const res = await request(`${dirServer.url}?style=jsonapi`);
      assert.equal(res.status, 400);
      assert.deepEqual(json(res), { error: 'bad-request', message: "style 'jsonapi' pages through generated notes: it needs --count, not --dir" });
    } finally {
      assert.equal((await dirServer.stop()).code, 0);
      rmSync(fixture.dir, { recursive: true });
    }
  });
});

describe('the size cap (--max-limit) in the offset, page, drf and jsonapi styles, with and without totals', () => {
  const N = 25;
  const CAP = 8;
  // Each style's size parameter, the page of a request, and how its next link names the size: the offset
  // and page styles repeat the size served, drf and jsonapi the request's (as Django REST framework does).
  const STYLES = {
    offset: { size: 'limit', next: (base, totals) => `${base}?offset=${CAP}&limit=${CAP}&style=offset${totals}` },
    page: { size: 'per_page', next: (base, totals) => `${base}?page=2&per_page=${CAP}&style=page${totals}` },
    drf: { size: 'page_size', next: (base, totals) => `${base}?page=2&page_size=20&style=drf${totals}` },
    jsonapi: { size: 'page%5Bsize%5D', next: (base, totals) => `${base}?page%5Bnumber%5D=2&page%5Bsize%5D=20&style=jsonapi${totals}` },
    keyset: { size: 'limit', next: null },
  };
  const notesOf = (style, body) => (style === 'keyset' || style === 'jsonapi' ? body.data : body.results);
  const nextOf = (style, body) => (style === 'jsonapi' ? body.links.next : body.next);
  let capped;
  let silent;

  before(async () => {
    const args = ['--count', String(N), '--page-size', '5', '--seed', '7', '--max-limit', String(CAP), '--id-kind', 'int', '--quiet'];
    [capped, silent] = await Promise.all([startServer(args), startServer([...args, '--totals', 'none'])]);
  });
  after(async () => {
    assert.equal((await capped.stop()).code, 0);
    assert.equal((await silent.stop()).code, 0);
  });

  for (const [label, server, totalsQuery] of [['totals announced', () => capped, ''], ['totals=none', () => capped, '&totals=none'], ['--totals none', () => silent, '']]) {
    test(`a larger size is served as the cap, silently; next and totals stay true (${label})`, async () => {
      const { url } = server();
      const announced = label === 'totals announced';
      const ids = (await walk(`${url}?style=contract`, 'contract')).flatMap((p) => p.ids);
      for (const [style, { size, next }] of Object.entries(STYLES)) {
        const res = await request(`${url}?style=${style}&${size}=20${totalsQuery}`);
        assert.equal(res.status, 200, style);
        const body = json(res);
        assert.deepEqual(notesOf(style, body).map((n) => (style === 'jsonapi' ? Number(n.id) : n.id)), ids.slice(0, CAP), style);
        if (next) assert.equal(nextOf(style, body), next(url, totalsQuery), style);
        if (style === 'offset' || style === 'page' || style === 'drf') assert.equal(body.count, announced ? N : undefined, style);
        if (style === 'offset' || style === 'page') assert.equal(res.headers['x-total-count'], announced ? String(N) : undefined, style);
        if (style === 'page') {
          assert.equal(body.total_pages, announced ? 4 : undefined);
          assert.equal(/rel="last"/.test(res.headers.link), announced);
        }
        if (style === 'jsonapi') {
          assert.deepEqual(body.meta.pagination, announced ? { page: 1, pages: 4, count: N } : { page: 1 });
          assert.equal(body.links.last, announced ? `${url}?page%5Bnumber%5D=4&page%5Bsize%5D=20&style=jsonapi` : undefined);
        }
        // Following the links reaches every note once, in pages of the cap.
        const pages = await walk(`${url}?style=${style}&${size}=20${totalsQuery}`, style);
        assert.deepEqual(pages.map((p) => p.ids.length), [8, 8, 8, 1], style);
        assert.deepEqual(pages.flatMap((p) => p.ids).map(Number), ids, style);
      }
      // A size within the cap is served as asked, and no size means --page-size.
      assert.equal(json(await request(`${url}?style=jsonapi&page[size]=${CAP}${totalsQuery}`)).data.length, CAP);
      assert.equal(json(await request(`${url}?style=drf&page_size=3${totalsQuery}`)).results.length, 3);
      assert.equal(json(await request(`${url}?style=drf${totalsQuery}`)).results.length, 5);
    });
  }
});
