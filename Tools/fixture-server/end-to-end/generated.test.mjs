// End-to-end tests: generated notes (--count): cursors, the notes of the Swift tests, integer ids, notes
// without titles; the server runs as a child process on port 0 and is asked over HTTP
// (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { json, JSON_TYPE, plainNote, request, runServer, startServer, walk, withoutId } from '../testing/harness.mjs';
import { arrayAt, contract } from '../testing/notes-dir.mjs';
import { REAL_STYLES, walkReal } from '../testing/real-servers.mjs';

describe('generated pages (--count)', () => {
  const args = ['--count', '25', '--page-size', '10', '--seed', '7', '--quiet'];
  const allIds = Array.from({ length: 25 }, (_, i) => `n${i}`);

  test('every style walks n0..n24 once; cursors are base64 that needs percent-encoding', async () => {
    const server = await startServer(args);
    try {
      const walks = {};
      for (const style of ['contract', 'drf', 'link']) {
        walks[style] = await walk(server.url, style, { 'X-Notes-Style': style });
        assert.deepEqual(walks[style].map((page) => page.ids.length), [10, 10, 5]);
        assert.deepEqual(walks[style].flatMap((page) => page.ids), allIds);
      }
      assert.deepEqual(walks.drf.map((page) => page.notes), walks.contract.map((page) => page.notes));
      assert.deepEqual(walks.link.map((page) => page.notes), walks.contract.map((page) => page.notes));
      const cursors = walks.contract.map((page) => json(page.res).next_cursor);
      assert.equal(cursors.pop(), null);
      for (const cursor of cursors) assert.match(cursor, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.ok(cursors.some((cursor) => /[+/=]/.test(cursor)));
      for (const page of walks.contract) {
        assert.deepEqual(Object.keys(json(page.res)), ['notes', 'next_cursor']);
        for (const note of page.notes) assert.deepEqual(Object.keys(note).slice(0, 2), ['id', 'title']);
      }
      assert.ok(walks.contract.some((page) => page.notes.some((note) => /[^\x00-\x7f]/.test(note.title))));
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('the same seed gives the same bytes; another seed other cursors', async () => {
    const servers = await Promise.all([startServer(args), startServer(args), startServer([...args.slice(0, 5), '8', '--quiet'])]);
    try {
      const [a, b, c] = await Promise.all(servers.map((server) => walk(server.url, 'contract')));
      assert.deepEqual(a.map((page) => page.res.body), b.map((page) => page.res.body));
      assert.notEqual(json(a[0].res).next_cursor, json(c[0].res).next_cursor);
    } finally {
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    }
  });

  test('--count 0 serves one empty page', async () => {
    const server = await startServer(['--count', '0', '--quiet']);
    try {
      assert.equal((await request(server.url)).body.toString(), '{"notes":[],"next_cursor":null}');
      assert.equal((await request(`${server.url}?style=drf`)).body.toString(), '{"next":null,"previous":null,"results":[]}');
      const link = await request(`${server.url}?style=link`);
      assert.equal(link.body.toString(), '[]');
      assert.equal(link.headers.link, undefined);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

describe('the notes of the Swift tests (--count 250 --page-size 100 --seed 7)', () => {
  test('the same notes, byte for byte, in every style and at any page size', async () => {
    const server = await startServer(['--count', '250', '--page-size', '100', '--seed', '7', '--quiet']);
    try {
      const contract = await walk(server.url, 'contract');
      assert.deepEqual(contract.map((p) => p.ids.length), [100, 100, 50]);
      const items = contract.map((p) => {
        const body = p.res.body;
        return body.subarray(...arrayAt(body, body.indexOf('[')));
      });
      const all = Buffer.concat([Buffer.from('['), ...items.map((i, n) => Buffer.concat([i.subarray(1, -1), Buffer.from(n < items.length - 1 ? ',' : '')])), Buffer.from(']')]);
      const offset = await request(`${server.url}?style=offset&limit=250`);
      assert.deepEqual(offset.body.subarray(...arrayAt(offset.body, offset.body.indexOf('"results":[') + 10)), all);
      const keyset = await request(`${server.url}?style=keyset&limit=1000`);
      assert.deepEqual(keyset.body.subarray(...arrayAt(keyset.body, keyset.body.indexOf('"data":[') + 7)), all);
      for (const style of ['drf', 'link', 'header', 'page']) {
        const walked = await walk(`${server.url}?style=${style}`, style);
        assert.deepEqual(walked.map((p) => p.notes), contract.map((p) => p.notes), style);
      }
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});

describe('integer ids (--id-kind int)', () => {
  const N = 25;
  const args = ['--count', String(N), '--page-size', '10', '--seed', '7', '--quiet'];
  let server;
  let base;
  let stringNotes; // the notes with string ids, n0..n24
  const get = (query, headers) => request(`${base}?${query}`, { headers });

  before(async () => {
    server = await startServer([...args, '--id-kind', 'int']);
    base = server.url;
    const strings = await startServer(args);
    try {
      stringNotes = (await walk(strings.url, 'contract')).flatMap((p) => p.notes);
    } finally {
      assert.equal((await strings.stop()).code, 0);
    }
    assert.deepEqual(stringNotes.map((n) => n.id), Array.from({ length: N }, (_, i) => `n${i}`));
  });
  after(async () => {
    assert.equal((await server.stop()).code, 0);
  });

  test('every style walks the same integer ids once, rising with gaps; each note is otherwise the one with a string id', async () => {
    let expected = null;
    for (const style of ['contract', 'drf', 'link', 'header', 'offset', 'page', 'keyset', 'jsonapi']) {
      const pages = await walk(`${base}?style=${style}`, style);
      assert.deepEqual(pages.map((p) => p.ids.length), [10, 10, 5], style);
      const notes = pages.flatMap((p) => p.notes).map((n) => (style === 'jsonapi' ? plainNote(n) : n));
      const ids = notes.map((n) => n.id);
      if (style === 'jsonapi') {
        assert.ok(ids.every((id) => typeof id === 'string' && /^[1-9]\d*$/.test(id)), 'JSON:API ids are strings');
        assert.deepEqual(ids, expected.map(String));
      } else {
        assert.ok(ids.every(Number.isSafeInteger), style);
        expected ??= ids;
        assert.deepEqual(ids, expected, style);
        // The id is a bare JSON number on the wire.
        assert.match(pages[0].res.body.toString(), new RegExp(`\\{"id":${ids[0]},"title":`), style);
      }
      assert.deepEqual(notes.map(withoutId), stringNotes.map(withoutId), style);
    }
    assert.equal(expected[0], 1);
    for (let i = 1; i < N; i++) assert.ok(expected[i] > expected[i - 1], `ids rise at ${i}`);
    assert.ok(expected.at(-1) > N, 'some ids are missing');
    assert.ok(expected.some((id, i) => i > 0 && id - expected[i - 1] > 1), 'with gaps');
    // The same seed gives the same ids on another server; another seed, other gaps.
    const again = await startServer([...args, '--id-kind', 'int']);
    const other = await startServer([...args.slice(0, 5), '8', '--id-kind', 'int', '--quiet']);
    try {
      assert.deepEqual((await walk(again.url, 'contract')).flatMap((p) => p.ids), expected);
      assert.notDeepEqual((await walk(other.url, 'contract')).flatMap((p) => p.ids), expected);
    } finally {
      assert.equal((await again.stop()).code, 0);
      assert.equal((await other.stop()).code, 0);
    }
  });

  test('drf is Django REST framework\'s PageNumberPagination: count, page and page_size, next and previous as DRF writes them', async () => {
    const first = await get('style=drf');
    assert.equal(first.headers['content-type'], JSON_TYPE);
    assert.equal(first.headers['x-total-count'], undefined);
    assert.deepEqual(Object.keys(json(first)), ['count', 'next', 'previous', 'results']);
    assert.deepEqual(json(first), { count: N, next: `${base}?page=2&style=drf`, previous: null, results: json(first).results });
    assert.deepEqual(Object.keys(json(first).results[0]), ['id', 'title', 'rank', 'pinned']);
    const second = json(await get('style=drf&page=2'));
    assert.equal(second.next, `${base}?page=3&style=drf`);
    // The previous page of page 2 drops the page number, as DRF's does; the other parameters are sorted.
    assert.equal(second.previous, `${base}?style=drf`);
    const sized = json(await get('style=drf&page_size=4&page=3&fault=delay:1'));
    assert.equal(sized.results.length, 4);
    assert.equal(sized.next, `${base}?fault=delay%3A1&page=4&page_size=4&style=drf`);
    assert.equal(sized.previous, `${base}?fault=delay%3A1&page=2&page_size=4&style=drf`);
    const last = json(await get('style=drf&page=3'));
    assert.deepEqual([last.results.length, last.next, last.previous], [5, null, `${base}?page=2&style=drf`]);
    assert.deepEqual(json(await get('style=drf&page=last')), last);
    // A page number that names no page is 404, as Django REST framework answers it.
    for (const page of ['4', '0', '-1', 'two', '2.0']) {
      const beyond = await get(`style=drf&page=${page}`);
      assert.equal(beyond.status, 404, page);
      assert.equal(beyond.headers['content-type'], JSON_TYPE);
      assert.deepEqual(json(beyond), { detail: 'Invalid page.' });
    }
    assert.equal((await get('style=drf&page=4&fault=503@4')).status, 404);
    // A page size that is not a positive integer is the default; the last value of a parameter counts.
    for (const size of ['0', '-5', 'x']) assert.equal(json(await get(`style=drf&page_size=${size}`)).results.length, 10, size);
    assert.equal(json(await get('style=drf&page=1&page=2')).previous, `${base}?style=drf`);
    // totals= (and --totals) decide the count; the other announcements do not apply to drf.
    assert.deepEqual(Object.keys(json(await get('style=drf&totals=none'))), ['next', 'previous', 'results']);
    assert.deepEqual(Object.keys(json(await get('style=drf&totals=header,link,pages'))), ['next', 'previous', 'results']);
    assert.deepEqual(Object.keys(json(await get('style=drf&totals=count'))), ['count', 'next', 'previous', 'results']);
    const pages = await walk(`${base}?style=drf&totals=none&page_size=7`, 'drf');
    assert.deepEqual(pages.map((p) => p.ids.length), [7, 7, 7, 4]);
    assert.ok(pages.every((p) => !('count' in json(p.res))));
    const bad = await get('style=drf&totals=every');
    assert.equal(bad.status, 400);
    assert.equal(json(bad).error, 'bad-request');
    const flagged = await startServer([...args, '--id-kind', 'int', '--style', 'drf', '--totals', 'none', '--total-lie', '3']);
    try {
      const page1 = json(await request(flagged.url));
      assert.deepEqual(Object.keys(page1), ['next', 'previous', 'results']);
      assert.equal(page1.next, `${flagged.url}?page=2`);
      assert.equal(json(await request(page1.next)).previous, flagged.url);
      assert.equal(json(await request(`${flagged.url}?totals=count`)).count, N + 3);
      // The announced count is off, the pages are not: page 3 is the last.
      assert.equal((await request(`${flagged.url}?page=4`)).status, 404);
    } finally {
      assert.equal((await flagged.stop()).code, 0);
    }
    // With string ids, drf is the cursor style it always was.
    const strings = await startServer(args);
    try {
      const page1 = json(await request(`${strings.url}?style=drf`));
      assert.deepEqual(Object.keys(page1), ['next', 'previous', 'results']);
      assert.match(page1.next, /\?cursor=/);
    } finally {
      assert.equal((await strings.stop()).code, 0);
    }
  });

  test('keyset: starting_after takes the digits of an id; a missing or string id is unknown', async () => {
    const ids = (await walk(`${base}?style=keyset`, 'keyset')).flatMap((p) => p.ids);
    const body = json(await get(`style=keyset&starting_after=${ids[3]}&limit=4`));
    assert.deepEqual(body.data.map((n) => n.id), ids.slice(4, 8));
    assert.equal(body.has_more, true);
    assert.deepEqual(json(await get(`style=keyset&starting_after=${ids.at(-1)}`)), { object: 'list', data: [], has_more: false, url: '/notes' });
    const missing = Array.from({ length: ids.at(-1) }, (_, i) => i + 1).filter((id) => !ids.includes(id));
    assert.ok(missing.length > 0);
    for (const id of [missing[0], ids.at(-1) + 1, 0, `0${ids[1]}`, 'n3', `${ids[1]}.0`, '']) {
      const res = await get(`style=keyset&starting_after=${id}`);
      assert.equal(res.status, 400, String(id));
      assert.deepEqual(json(res), { error: 'unknown-cursor', message: 'no note has this id' });
    }
  });

  test('faults: duplicate-id gives the first integer id; shift inserts notes with ids after the last; @PAGE in drf is the page number', async () => {
    const ids = (await walk(base, 'contract')).flatMap((p) => p.ids);
    const cursor = json(await get('')).next_cursor;
    const duplicated = json(await get(`cursor=${encodeURIComponent(cursor)}&fault=duplicate-id@2`));
    assert.deepEqual(duplicated.notes.map((n) => n.id), [...ids.slice(10, 19), 1]);
    assert.deepEqual(json(await get('style=offset&offset=10&fault=duplicate-id@2')).results.at(-1).id, 1);
    assert.equal(json(await get('style=jsonapi&page[number]=2&fault=duplicate-id@2')).data.at(-1).id, '1');
    const last = ids.at(-1);
    const pages = await walk(`${base}?style=drf&fault=shift:2@2`, 'drf');
    assert.deepEqual(pages.flatMap((p) => p.ids), [...ids.slice(0, 10), ...ids.slice(8)]);
    assert.deepEqual(json(await get('style=drf&page_size=3&fault=shift:2@2')).results.map((n) => n.id), [last + 1, last + 2, 1]);
    assert.deepEqual(json(await get(`style=keyset&limit=2&starting_after=${last + 2}&fault=shift:2@2`)).data.map((n) => n.id), [1, ids[1]]);
    assert.equal((await get('style=drf&page=2&fault=503@2')).status, 503);
    assert.equal((await get('style=drf&page=1&fault=503@2')).status, 200);
    const cycled = json(await get('style=drf&page=3&fault=cycle'));
    assert.equal(cycled.next, `${base}?fault=cycle&page=2&style=drf`);
  });
});

describe('notes without titles (--no-titles)', () => {
  test('every style serves the notes without their title member, otherwise byte for byte the same', async () => {
    const args = ['--count', '12', '--page-size', '5', '--seed', '7', '--quiet'];
    const [titled, bare] = await Promise.all([startServer(args), startServer([...args, '--no-titles'])]);
    try {
      const strip = (text) => text.replace(/"title":"(?:[^"\\]|\\.)*",/g, '');
      for (const style of ['contract', 'drf', 'link', 'header', 'offset', 'page', 'keyset', 'jsonapi']) {
        const [with_, without] = await Promise.all([walk(`${titled.url}?style=${style}`, style), walk(`${bare.url}?style=${style}`, style)]);
        assert.deepEqual(without.flatMap((p) => p.ids), with_.flatMap((p) => p.ids), style);
        assert.ok(without.every((p) => p.notes.every((note) => !('title' in note) && !('title' in (note.attributes ?? {})))), style);
        // The same bytes but the titles (and the URLs, which name each server's port).
        const ports = (text, server) => text.replaceAll(new URL(server.url).host, 'HOST');
        assert.deepEqual(without.map((p) => ports(p.res.body.toString(), bare)), with_.map((p) => ports(strip(p.res.body.toString()), titled)), style);
      }
      for (const style of REAL_STYLES) {
        const pages = await walkReal(`${bare.url}?style=${style}`, style);
        assert.equal(pages.flatMap((p) => p.ids).length, 12, style);
        assert.ok(pages.every((p) => p.notes.every((note) => !('title' in note))), style);
      }
      const notion = await request(`${bare.url.replace(/\/notes$/, '')}/v1/databases/notes/query`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      assert.ok(json(notion).results.every((note) => Object.keys(note).join() === 'id,rank,pinned'));
      // huge-title finds nothing to change.
      assert.equal((await request(`${bare.url}?fault=huge-title:50`)).body.toString(), (await request(bare.url)).body.toString());
    } finally {
      assert.equal((await titled.stop()).code, 0);
      assert.equal((await bare.stop()).code, 0);
    }
    const { code, stderr } = await runServer(['--dir', '/nonexistent', '--no-titles']);
    assert.equal(code, 64);
    assert.match(stderr, /--no-titles goes with --count, not --dir/);
    const help = await runServer(['--help']);
    for (const word of ['--no-titles', ...REAL_STYLES]) assert.ok(help.stdout.includes(word), word);
  });
});
