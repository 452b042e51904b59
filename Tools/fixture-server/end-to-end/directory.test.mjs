// End-to-end tests: a notes-gen directory built from Fixtures/contract (testing/notes-dir.mjs), in every
// cursor style, with faults chosen per request; the server runs as a child process on port 0 and is asked
// over HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { HTML_TYPE, json, JSON_TYPE, nextLink, pageUrl, rawGet, request, startServer, timed, walk } from '../testing/harness.mjs';
import { contract, makeNotesDir } from '../testing/notes-dir.mjs';

describe('a notes-gen directory built from Fixtures/contract', () => {
  const fixture = makeNotesDir();
  const { pages } = fixture;
  let server;
  let base;
  const urlOf = (i, extra) => pageUrl(base, pages[i].cursor, extra);

  before(async () => {
    server = await startServer(['--dir', fixture.dir]);
    base = server.url;
  });
  after(async () => {
    const { code } = await server.stop();
    rmSync(fixture.dir, { recursive: true });
    assert.equal(code, 0);
  });

  test('prints a loopback URL of /notes', () => {
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+\/notes$/);
  });

  test('contract style: each page file byte for byte, with its headers', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i));
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['content-length'], String(page.body.length));
      assert.deepEqual(res.body, page.body);
    }
  });

  test('walks every page in each style; the same notes, every id once', async () => {
    const walks = {};
    for (const style of ['contract', 'drf', 'link']) {
      walks[style] = await walk(style === 'contract' ? base : `${base}?style=${style}`, style);
      assert.deepEqual(walks[style].map((page) => page.ids), pages.map((page) => page.ids), style);
      const ids = walks[style].flatMap((page) => page.ids);
      assert.deepEqual(ids, fixture.ids);
      assert.equal(new Set(ids).size, ids.length);
    }
    assert.deepEqual(walks.drf.map((page) => page.notes), walks.contract.map((page) => page.notes));
    assert.deepEqual(walks.link.map((page) => page.notes), walks.contract.map((page) => page.notes));
  });

  test('drf style: the page items re-wrapped byte for byte, absolute next and previous URLs', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i, 'style=drf'));
      const next = page.nextCursor === null ? null : pageUrl(base, page.nextCursor, 'style=drf');
      const previous = i === 0 ? null : urlOf(i - 1, 'style=drf');
      const expected = Buffer.concat([Buffer.from(`{"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":`), page.items, Buffer.from('}')]);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.body, expected);
    }
  });

  test('link style: the bare items byte for byte, Link next on every page but the last', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i), { headers: { 'X-Notes-Style': 'link' } });
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.body, page.items);
      const links = [];
      if (i > 0) links.push(`<${urlOf(i - 1)}>; rel="prev"`);
      if (page.nextCursor !== null) links.push(`<${pageUrl(base, page.nextCursor)}>; rel="next"`);
      assert.equal(res.headers.link, links.length ? links.join(', ') : undefined);
    }
    assert.equal(nextLink((await request(urlOf(pages.length - 1, 'style=link'))).headers.link), null);
  });

  test('header style: {"notes":items} byte for byte, X-Next-Cursor on every page but the last', async () => {
    for (const [i, page] of pages.entries()) {
      const res = await request(urlOf(i, 'style=header'));
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.body, Buffer.concat([Buffer.from('{"notes":'), page.items, Buffer.from('}')]));
      assert.equal(res.headers['x-next-cursor'], page.nextCursor ?? undefined);
    }
    const walked = await walk(`${base}?style=header`, 'header');
    assert.deepEqual(walked.map((page) => page.ids), pages.map((page) => page.ids));
    const cycled = await request(urlOf(3, 'style=header&fault=cycle'));
    assert.equal(cycled.headers['x-next-cursor'], pages[1].cursor);
  });

  test('offset, page and keyset styles need generated notes: 400 here', async () => {
    for (const style of ['offset', 'page', 'keyset']) {
      const res = await request(`${base}?style=${style}`);
      assert.equal(res.status, 400, style);
      assert.deepEqual(json(res), { error: 'bad-request', message: `style '${style}' pages through generated notes: it needs --count, not --dir` });
    }
    assert.equal((await request(base, { headers: { 'X-Notes-Style': 'page' } })).status, 400);
    assert.equal((await request(`${base}?fault=shift:2@2`)).status, 400);
  });

  test('the style flag sets the default style', async () => {
    for (const style of ['drf', 'link']) {
      const styled = await startServer(['--dir', fixture.dir, '--style', style, '--quiet']);
      try {
        const walked = await walk(styled.url, style);
        assert.deepEqual(walked.flatMap((page) => page.ids), fixture.ids);
        // Chosen by flag, the style is not repeated in the URLs.
        assert.ok(!walked[0].res.body.includes('style=') && !(walked[0].res.headers.link ?? '').includes('style='));
        const overridden = await request(styled.url, { headers: { 'X-Notes-Style': 'contract' } });
        assert.deepEqual(overridden.body, pages[0].body);
      } finally {
        assert.equal((await styled.stop()).code, 0);
      }
    }
  });

  test('keep-alive: one connection serves a walk', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const reused = [];
      for (const i of pages.keys()) reused.push((await request(urlOf(i), { agent })).reused);
      assert.deepEqual(reused, [false, true, true, true, true]);
    } finally {
      agent.destroy();
    }
  });

  test('404 for other paths, 405 for other methods', async () => {
    for (const target of ['/', '/notes/', '/Notes', '/notes.json']) {
      const res = await request(new URL(target, base));
      assert.equal(res.status, 404, target);
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.equal(json(res).error, 'not-found');
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD']) {
      const res = await request(base, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'GET');
    }
  });

  test('400 with a JSON body for an unknown cursor, a cursor not percent-encoded, or a bad parameter', async () => {
    const unknown = await request(`${base}?cursor=nope`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.headers['content-type'], JSON_TYPE);
    assert.deepEqual(json(unknown), { error: 'unknown-cursor', message: 'no page has this cursor' });
    // A raw `+` is a space in a query.
    assert.equal((await request(`${base}?cursor=${pages[1].cursor}`)).status, 400);
    assert.equal((await request(urlOf(1))).status, 200);
    for (const [query, message] of [['cursor=a&cursor=b', /more than one cursor/], ['style=xml', /unknown style/], ['fault=explode', /unknown fault kind/],
      ['fault=fixture:absent.json', /no fixture/], ['fault=auth', /needs a token/]]) {
      const res = await request(`${base}?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(json(res).error, 'bad-request');
      assert.match(json(res).message, message);
    }
    assert.equal((await request(base, { headers: { 'X-Notes-Fault': '503@0' } })).status, 400);
  });

  describe('faults chosen per request', () => {
    for (const [spec, status, retryAfter] of [['500', 500], ['502', 502], ['503', 503, '1'], ['503:7', 503, '7'],
      ['429', 429, '1'], ['429:0', 429, '0'], ['401', 401], ['403', 403]]) {
      test(`status ${spec}`, async () => {
        for (const res of [await request(`${base}?fault=${spec}`), await request(base, { headers: { 'X-Notes-Fault': spec } })]) {
          assert.equal(res.status, status);
          assert.equal(res.headers['retry-after'], retryAfter);
          assert.equal(res.headers['www-authenticate'], status === 401 ? 'Bearer realm="notes"' : undefined);
          assert.equal(res.headers['content-type'], JSON_TYPE);
          assert.equal(res.headers['cache-control'], 'no-store');
          assert.deepEqual(json(res), { error: 'injected', status });
        }
      });
    }

    for (const [spec, file] of [['html', 'html-body.html'], ['invalid-json', 'invalid-json.json'], ['missing-id', 'missing-id.json'],
      ['number-id', 'number-id.json'], ['fixture:truncated.json', 'truncated.json'], ['fixture:deep-nesting.json', 'deep-nesting.json']]) {
      test(`${spec} serves Fixtures/contract/${file} byte for byte, in every style`, async () => {
        for (const style of ['contract', 'drf', 'link']) {
          const res = await request(urlOf(2, `style=${style}&fault=${spec}`));
          assert.equal(res.status, 200);
          assert.equal(res.headers['content-type'], file.endsWith('.html') ? HTML_TYPE : JSON_TYPE);
          assert.equal(res.headers['content-length'], String(contract(file).length));
          assert.deepEqual(res.body, contract(file));
        }
      });
    }

    test('content-type: the page under a wrong type', async () => {
      const plain = await request(urlOf(1, 'fault=content-type'));
      assert.equal(plain.headers['content-type'], 'text/plain; charset=utf-8');
      assert.deepEqual(plain.body, pages[1].body);
      const xml = await request(urlOf(1), { headers: { 'X-Notes-Fault': 'content-type:application/xml' } });
      assert.equal(xml.headers['content-type'], 'application/xml');
      assert.deepEqual(xml.body, pages[1].body);
    });

    test('truncate: the full Content-Length, half the body, then the connection closes', async () => {
      const { head, body } = await rawGet(urlOf(0, 'fault=truncate'));
      assert.match(head, /^HTTP\/1\.1 200 /);
      assert.match(head, new RegExp(`\r\ncontent-length: ${pages[0].body.length}\r\n`, 'i'));
      assert.deepEqual(body, pages[0].body.subarray(0, Math.floor(pages[0].body.length / 2)));
      const ten = await rawGet(urlOf(0, 'fault=truncate:10'));
      assert.deepEqual(ten.body, pages[0].body.subarray(0, 10));
      const none = await rawGet(urlOf(0, 'fault=truncate:0'));
      assert.match(none.head, /^HTTP\/1\.1 200 /);
      assert.equal(none.body.length, 0);
      await assert.rejects(request(urlOf(0, 'fault=truncate')), { code: 'ECONNRESET' });
    });

    test('reset: the connection is reset before any response', async () => {
      await assert.rejects(request(urlOf(1, 'fault=reset')), { code: 'ECONNRESET' });
      await assert.rejects(request(urlOf(1), { headers: { 'X-Notes-Fault': 'reset' } }), { code: 'ECONNRESET' });
    });

    test('drip: the whole body, slowly', async () => {
      const res = await timed(request(urlOf(0, 'fault=drip:16/10')));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, pages[0].body);
      // At least ceil(bytes / 16) - 1 pauses of 10 ms; half of that is a safe lower bound.
      assert.ok(res.ms >= ((Math.ceil(pages[0].body.length / 16) - 1) * 10) / 2, `${res.ms} ms`);
    });

    test('delay: the page, late', async () => {
      const res = await timed(request(urlOf(1, 'fault=delay:200')));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, pages[1].body);
      assert.ok(res.ms >= 150, `${res.ms} ms`);
    });

    test("duplicate-id: a later page's last note takes page 1's first id", async () => {
      const res = await request(urlOf(1, 'fault=duplicate-id'));
      assert.equal(res.body.toString(), pages[1].body.toString().replace('"id": "b"', '"id": "n1"'));
      assert.deepEqual(json(res).notes.map((note) => note.id), ['a', 'n1']);
      const drf = await request(urlOf(3, 'style=drf&fault=duplicate-id'));
      assert.deepEqual(json(drf).results.map((note) => note.id), ['n1']);
      // Nothing to act on: the empty page stays as it is.
      assert.deepEqual((await request(urlOf(4, 'fault=duplicate-id'))).body, pages[4].body);
    });

    test("cycle: the next cursor points back to page 2's", async () => {
      const res = await request(urlOf(3), { headers: { 'X-Notes-Fault': 'cycle' } });
      assert.equal(res.body.toString(), pages[3].body.toString().replace(JSON.stringify(pages[3].nextCursor), JSON.stringify(pages[1].cursor)));
      const drf = await request(urlOf(4, 'style=drf&fault=cycle'));
      assert.equal(json(drf).next, urlOf(1, 'style=drf&fault=cycle'));
      // Page 1 has no cursor of its own and is left alone.
      assert.deepEqual((await request(base, { headers: { 'X-Notes-Fault': 'cycle' } })).body, pages[0].body);
    });

    test('huge-title: a 2 MiB first title by default, or ARG bytes', async () => {
      const res = await request(urlOf(0, 'fault=huge-title'));
      const notes = json(res).notes;
      assert.equal(notes[0].title.length, 2 * 1024 * 1024);
      assert.match(notes[0].title, /^(huge title )+/);
      assert.deepEqual(notes.map((note) => note.id), pages[0].ids);
      assert.equal(Number(res.headers['content-length']), res.body.length);
      const small = await request(urlOf(0, 'fault=huge-title:12'));
      assert.equal(small.body.toString(), pages[0].body.toString().replace('"Groceries"', '"huge title h"'));
    });

    test('deep: 100,000 nested arrays in the first note by default', async () => {
      const notes = json(await request(urlOf(1, 'fault=deep'))).notes;
      let depth = 0;
      for (let value = notes[0].deep; Array.isArray(value); value = value[0]) depth++;
      assert.equal(depth, 100_000);
      assert.deepEqual(notes.map((note) => note.id), pages[1].ids);
      const shallow = await request(urlOf(1, 'fault=deep:2'));
      assert.equal(shallow.body.toString(), pages[1].body.toString().replace('[{"id": "a"', '[{"deep":[[]],"id": "a"'));
    });

    test('redirect: to the same path and query on another port, which refuses forwarded credentials', async () => {
      const res = await request(urlOf(1, 'fault=redirect'));
      assert.equal(res.status, 302);
      const location = new URL(res.headers.location);
      assert.equal(location.hostname, '127.0.0.1');
      assert.notEqual(location.port, new URL(base).port);
      assert.equal(`${location.pathname}${location.search}`, new URL(urlOf(1, 'fault=redirect')).pathname + new URL(urlOf(1, 'fault=redirect')).search);
      // The redirect target serves the page (ignoring faults), unless the client brought its token along.
      const followed = await request(location);
      assert.equal(followed.status, 200);
      assert.deepEqual(followed.body, pages[1].body);
      const leaked = await request(location, { headers: { Authorization: 'Bearer leaked' } });
      assert.equal(leaked.status, 400);
      assert.equal(json(leaked).error, 'credentials-forwarded');
      const temporary = await request(base, { headers: { 'X-Notes-Fault': 'redirect:307' } });
      assert.equal(temporary.status, 307);
      assert.equal(new URL(temporary.headers.location).port, location.port);
    });

    test('a fault with @PAGE and xN: only on that page, only the first N times', async () => {
      const headers = { 'X-Notes-Fault': '503@2x2' };
      assert.equal((await request(urlOf(0), { headers })).status, 200);
      assert.deepEqual(
        [await request(urlOf(1), { headers }), await request(urlOf(1), { headers }), await request(urlOf(1), { headers })].map((res) => res.status),
        [503, 503, 200],
      );
      assert.equal((await request(urlOf(2), { headers })).status, 200);
      // The query form counts the same way.
      assert.deepEqual([(await request(`${base}?fault=500x1`)).status, (await request(`${base}?fault=500x1`)).status], [500, 200]);
    });

    test('faults combine, and drf and link URLs carry faults and style chosen in the query', async () => {
      const res = await timed(request(urlOf(0, 'style=drf&fault=delay:50,content-type')));
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.ok(res.ms >= 25);
      assert.equal(json(res).next, urlOf(1, 'style=drf&fault=delay%3A50%2Ccontent-type'));
      const walked = await walk(`${base}?style=link&fault=huge-title:3@2`, 'link');
      assert.deepEqual(walked.map((page) => page.notes[0]?.title), ['Groceries', 'hug', 'bare array page', 'drf', undefined]);
    });
  });
});
