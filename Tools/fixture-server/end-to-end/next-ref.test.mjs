// End-to-end tests: hostile next references (next-ref:KIND); the server runs as a child process on port 0
// and is asked over HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time
// are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { json, nextLink, runServer, startServer, walk } from '../testing/harness.mjs';

describe('next-ref: hostile next references (--count)', () => {
  const args = ['--count', '25', '--page-size', '10', '--seed', '7', '--quiet'];
  let server;
  let cursors; // the real cursors of pages 2 and 3
  before(async () => {
    server = await startServer(args);
    cursors = (await walk(server.url, 'contract')).map((page) => json(page.res).next_cursor).slice(0, 2);
  });
  after(async () => assert.equal((await server.stop()).code, 0));
  // long-name's Link and X-Next-Cursor are over the 16 KiB of headers that Node's client takes by default.
  const request = (url) => new Promise((resolve, reject) => {
    http.get(url, { agent: false, maxHeaderSize: 1 << 20 }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  const origin = () => new URL(server.url).origin;
  const real = (extra) => `${server.url}?cursor=${encodeURIComponent(cursors[0])}&${extra}`;

  test('drf and link: the next URL of each kind, the others left alone', async () => {
    const q = (spec) => `style=drf&fault=${spec}`;
    const [host] = origin().split('//').slice(1);
    const expected = {
      'brackets-raw': (fault) => `${origin()}/notes?page[offset]=100&cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'brackets-encoded': (fault) => `${origin()}/notes?page%5Boffset%5D=100&cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'space': (fault) => `${origin()}/notes?q=a b&cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'bad-escape': (fault) => `${origin()}/notes%zz?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'unicode': (fault) => `${origin()}/notes/é?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'fragment': (fault) => `${real(fault)}#frag`,
      'userinfo': (fault) => `http://user:pass@${host}/notes?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'ftp': (fault) => `ftp://${host}/notes?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'file': () => 'file:///etc/passwd',
      'empty-host': (fault) => `http:///notes?cursor=${encodeURIComponent(cursors[0])}&${fault}`,
      'long-name': (fault) => `${real(fault)}&${'n'.repeat(64 * 1024)}=1`,
    };
    for (const [kind, url] of Object.entries(expected)) {
      const spec = `next-ref:${kind}@1`;
      const drf = await request(`${server.url}?${q(spec)}`);
      assert.equal(drf.status, 200, kind);
      assert.equal(json(drf).next, url(`style=drf&fault=${encodeURIComponent(spec)}`), kind);
      const link = await request(`${server.url}?style=link&fault=${spec}`);
      const target = Buffer.from(link.headers.link, 'latin1').toString('utf8'); // raw UTF-8 bytes in the header
      assert.equal(nextLink(target), url(`style=link&fault=${encodeURIComponent(spec)}`), kind);
      // Page 2 is not page 1: its next URL is the real one; the notes are untouched.
      const page2 = json(await request(`${server.url}?cursor=${encodeURIComponent(cursors[0])}&${q(spec)}`));
      assert.equal(page2.next, `${server.url}?cursor=${encodeURIComponent(cursors[1])}&style=drf&fault=${encodeURIComponent(spec)}`);
      assert.deepEqual(json(drf).results.map((note) => note.id), Array.from({ length: 10 }, (_, i) => `n${i}`));
    }
  });

  test('contract and header: the hostile cursor, which the server takes as the real one', async () => {
    for (const [kind, suffix] of [['brackets-raw', 'page[offset]=100'], ['brackets-encoded', 'page%5Boffset%5D=100'],
      ['space', ' and space'], ['bad-escape', '%zz'], ['unicode', 'é'], ['long-name', 'n'.repeat(64 * 1024)]]) {
      const res = await request(`${server.url}?fault=next-ref:${kind}@1`);
      const hostile = json(res).next_cursor;
      assert.equal(hostile, `${cursors[0]}${suffix}`, kind);
      const header = await request(`${server.url}?style=header&fault=next-ref:${kind}@1`);
      assert.equal(Buffer.from(header.headers['x-next-cursor'], 'latin1').toString('utf8'), hostile, kind);
      // (A 64 KiB cursor is over the 16 KiB request head that Node's server takes: the client must refuse it.)
      if (kind === 'long-name') continue;
      const followed = await request(`${server.url}?cursor=${encodeURIComponent(hostile)}`);
      assert.deepEqual(followed.body, (await request(`${server.url}?cursor=${encodeURIComponent(cursors[0])}`)).body, kind);
    }
    // The last page has no next reference to replace.
    const last = await request(`${server.url}?cursor=${encodeURIComponent(cursors[1])}&fault=next-ref:space`);
    assert.equal(json(last).next_cursor, null);
  });

  test("the URL kinds' targets serve the next page where they can: /notes/é, extra parameters", async () => {
    const want = (await request(`${server.url}?cursor=${encodeURIComponent(cursors[0])}`)).body;
    for (const url of [`${origin()}/notes/%C3%A9?cursor=${encodeURIComponent(cursors[0])}`,
      `${origin()}/notes?page%5Boffset%5D=100&cursor=${encodeURIComponent(cursors[0])}`,
      `${origin()}/notes?q=a%20b&cursor=${encodeURIComponent(cursors[0])}`]) {
      assert.deepEqual((await request(url)).body, want, url);
    }
    assert.equal((await request(`${origin()}/notes%25zz?cursor=${encodeURIComponent(cursors[0])}`)).status, 404);
  });

  test('refused: a URL kind where the next reference is a cursor, next-ref outside the cursor styles, an unknown kind', async () => {
    for (const [query, message] of [
      ['fault=next-ref:ftp', /in contract style the next reference is a cursor, and 'ftp' is a URL's/],
      ['style=header&fault=next-ref:fragment', /in header style the next reference is a cursor/],
      ['style=offset&fault=next-ref:space', /works in the contract, header, drf, link styles only, not offset/],
      ['fault=next-ref:gopher', /fault 'next-ref' needs one of brackets-raw/],
      ['fault=next-ref', /fault 'next-ref' needs one of/],
    ]) {
      const res = await request(`${server.url}?${query}`);
      assert.equal(res.status, 400, query);
      assert.match(json(res).message, message, query);
    }
    for (const extra of [['--fault', 'next-ref:file@2'], ['--style', 'keyset', '--fault', 'next-ref:space'], ['--fault', 'next-ref:space@9']]) {
      const { code, stderr } = await runServer([...args, ...extra]);
      assert.equal(code, 64, extra.join(' '));
      assert.match(stderr, /^Error: .*next-ref/);
    }
  });

  test('a flag fault acts on its page only, and is logged', async () => {
    const flagged = await startServer(['--count', '25', '--page-size', '10', '--seed', '7', '--style', 'drf', '--fault', 'next-ref:ftp@2']);
    const page1 = json(await request(flagged.url));
    const page2 = json(await request(page1.next));
    const page3 = json(await request(page2.next.replace(/^ftp:/, 'http:')));
    const { code, stderr } = await flagged.stop();
    assert.equal(code, 0);
    assert.match(page1.next, /^http:\/\//);
    assert.match(page2.next, /^ftp:\/\//);
    assert.equal(page3.next, null);
    assert.match(stderr, /GET \/notes\?cursor=\S+ 200 \d+B \S+ fault=next-ref:ftp@2 /);
  });
});
