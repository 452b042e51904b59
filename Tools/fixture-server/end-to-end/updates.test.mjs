// End-to-end tests: notes that change (--updates); the server runs as a child process on port 0 and is
// asked over HTTP (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are
// asserted.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { json, JSON_TYPE, nextLink, pageUrl, request, startServer, walk } from '../testing/harness.mjs';

describe('notes that change (--updates)', () => {
  const args = ['--count', '25', '--page-size', '10', '--seed', '7', '--updates'];
  const EPOCH = Date.UTC(2026, 10, 30, 8, 0, 0);
  const minute = (i) => new Date(EPOCH + i * 60_000).toISOString().replace('.000Z', 'Z');
  const post = (url, target) => request(url.replace(/\/notes$/, target), { method: 'POST' });
  const walkIds = (pages) => pages.flatMap((page) => page.ids);
  const CURSOR_STYLES = ['contract', 'drf', 'link', 'header'];

  test('without --updates nothing changes: since is ignored, /admin/ is a path like any other (404)', async () => {
    const server = await startServer(['--count', '25', '--page-size', '10', '--seed', '7', '--quiet']);
    try {
      const plain = await request(server.url);
      const since = await request(`${server.url}?since=2026-11-30T08:05:00Z`);
      assert.deepEqual(since.body, plain.body);
      assert.ok(!plain.body.includes('updated_at'));
      assert.equal((await request(`${server.url}?since=yesterday`)).status, 200);
      const admin = await post(server.url, '/admin/touch?count=1');
      assert.equal(admin.status, 404);
      assert.match(json(admin).message, /^no such path; pages are at \/notes/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('every note has updated_at, a minute apart by position; otherwise the notes of --count, in every cursor style', async () => {
    const servers = await Promise.all([startServer([...args, '--quiet']), startServer([...args.slice(0, -1), '--quiet'])]);
    try {
      const [updating, plain] = servers;
      const expected = walkIds(await walk(plain.url, 'contract'));
      const plainNotes = (await walk(plain.url, 'contract')).flatMap((page) => page.notes);
      for (const style of CURSOR_STYLES) {
        const pages = await walk(updating.url, style, { 'X-Notes-Style': style });
        assert.deepEqual(pages.map((page) => page.ids.length), [10, 10, 5], style);
        const notes = pages.flatMap((page) => page.notes);
        assert.deepEqual(notes.map((note) => note.id), expected, style);
        assert.deepEqual(notes.map((note) => note.updated_at), expected.map((_, i) => minute(i)), style);
        assert.deepEqual(notes.map(({ updated_at: _, ...rest }) => rest), plainNotes, style);
        for (const note of notes) assert.equal(Object.keys(note).at(-1), 'updated_at');
      }
      // The same cursors as --count's, and the same bytes with updated_at before each note's end.
      const [first, firstPlain] = await Promise.all([request(updating.url), request(plain.url)]);
      assert.equal(json(first).next_cursor, json(firstPlain).next_cursor);
      assert.equal(first.body.toString().replace(/,"updated_at":"[^"]*"/g, ''), firstPlain.body.toString());
    } finally {
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    }
  });

  test('since=T keeps the notes updated at or after T on every page, cursors and next URLs included, in every cursor style', async () => {
    const server = await startServer([...args, '--quiet']);
    try {
      for (const style of CURSOR_STYLES) {
        // Notes n3 … n24: 22 notes, three pages of the filtered list.
        for (const since of ['2026-11-30T08:03:00Z', '2026-11-30T08:02:00.001Z', '2026-11-30t09:03:00%2B01:00', '2026-11-30T03:03:00-05:00']) {
          const pages = await walk(`${server.url}?since=${since}`, style, { 'X-Notes-Style': style });
          assert.deepEqual(pages.map((page) => page.ids.length), [10, 10, 2], `${style} ${since}`);
          assert.deepEqual(walkIds(pages), Array.from({ length: 22 }, (_, i) => `n${i + 3}`), `${style} ${since}`);
        }
        const inclusive = await walk(`${server.url}?since=${minute(24)}`, style, { 'X-Notes-Style': style });
        assert.deepEqual(walkIds(inclusive), ['n24'], style);
        const none = await walk(`${server.url}?since=2027-01-01T00:00:00Z`, style, { 'X-Notes-Style': style });
        assert.deepEqual(none.map((page) => page.ids), [[]], style);
        const all = await walk(`${server.url}?since=2000-01-01T00:00:00Z`, style, { 'X-Notes-Style': style });
        assert.equal(walkIds(all).length, 25, style);
      }
      // drf and link carry since in their next URLs; a cursor past the filtered list's last page is an empty page.
      const drf = json(await request(`${server.url}?style=drf&since=${minute(3)}`));
      assert.equal(new URL(drf.next).searchParams.get('since'), minute(3));
      const link = await request(`${server.url}?style=link&since=${minute(3)}`);
      assert.equal(new URL(nextLink(link.headers.link)).searchParams.get('since'), minute(3));
      const lastCursor = json(await request(pageUrl(server.url, json(await request(server.url)).next_cursor))).next_cursor;
      const past = await request(pageUrl(server.url, lastCursor, `since=${minute(20)}`));
      assert.equal(past.body.toString(), '{"notes":[],"next_cursor":null}');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('a since that is no RFC 3339 date-time is a 422 JSON error (a raw + included); two are a 400', async () => {
    const server = await startServer([...args, '--quiet']);
    try {
      for (const since of ['yesterday', '2026-11-30', '2026-11-30T08:00:00', '2026-11-30T09:00:00+01:00', '2026-02-30T08:00:00Z', '', '1796025600']) {
        for (const extra of ['', `&cursor=${encodeURIComponent(json(await request(server.url)).next_cursor)}`, '&style=link']) {
          const res = await request(`${server.url}?since=${since}${extra}`);
          assert.equal(res.status, 422, `${since}${extra}`);
          assert.equal(res.headers['content-type'], JSON_TYPE);
          assert.equal(json(res).error, 'invalid-since');
          assert.match(json(res).message, /^since must be an RFC 3339 date-time/);
        }
      }
      const twice = await request(`${server.url}?since=${minute(1)}&since=${minute(2)}`);
      assert.equal(twice.status, 400);
      assert.deepEqual(json(twice), { error: 'bad-request', message: 'more than one since' });
      // The list styles are not served: their pages are places in a list that changes.
      const offset = await request(`${server.url}?style=offset`);
      assert.equal(offset.status, 400);
      assert.match(json(offset).message, /--updates serves the cursor styles \(contract, drf, link, header\), not offset/);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('POST /admin/touch and /admin/add change the notes at once: a walk since the newest before gets exactly them', async () => {
    const server = await startServer(args);
    let stderr;
    try {
      const touched = await post(server.url, '/admin/touch?count=3');
      assert.equal(touched.status, 200);
      assert.equal(touched.headers['content-type'], JSON_TYPE);
      const edits = json(touched);
      assert.deepEqual(Object.keys(edits), ['touched', 'count', 'newest']);
      assert.equal(edits.touched.length, 3);
      assert.deepEqual(edits.touched.map((note) => note.updated_at), [minute(25), minute(26), minute(27)]);
      for (const note of edits.touched) assert.match(note.title, /^Edit 1: /);
      assert.deepEqual([edits.count, edits.newest], [25, minute(27)]);

      const added = json(await post(server.url, '/admin/add?count=2'));
      assert.deepEqual(added.added.map((note) => [note.id, note.title, note.updated_at]),
        [['new0', 'New note 0', minute(28)], ['new1', 'New note 1', minute(29)]]);
      assert.deepEqual([added.count, added.newest], [27, minute(29)]);
      const byId = json(await post(server.url, '/admin/touch?id=n0&id=new0'));
      assert.deepEqual(byId.touched.map((note) => [note.id, note.updated_at]), [['n0', minute(30)], ['new0', minute(31)]]);

      for (const style of CURSOR_STYLES) {
        const all = (await walk(server.url, style, { 'X-Notes-Style': style })).flatMap((page) => page.notes);
        assert.equal(all.length, 27, style);
        assert.deepEqual(all.map((note) => note.updated_at), [...all.map((note) => note.updated_at)].sort(), style);
        // Served as the answers showed them, in updated_at order.
        const changed = [...edits.touched.filter((note) => note.id !== 'n0'), added.added[1], ...byId.touched];
        assert.deepEqual(all.slice(-changed.length).map((note) => note.id), changed.map((note) => note.id), style);
        assert.deepEqual(all.slice(-changed.length), changed, style);
        // The sync's next run asks from the newest it had seen (since is inclusive): that note and the changes.
        const since = await walk(`${server.url}?since=${minute(24)}`, style, { 'X-Notes-Style': style });
        const sinceIds = walkIds(since);
        const n24 = edits.touched.some((note) => note.id === 'n24') ? [] : ['n24'];
        assert.deepEqual(sinceIds, [...n24, ...changed.map((note) => note.id)], style);
      }
      // The Notion-style query serves the same notes in the same order.
      const notion = await request(server.url.replace(/\/notes$/, '/v1/databases/notes/query'), { method: 'POST' });
      assert.equal(json(notion).results.length, 27);
      assert.equal(json(notion).results.at(-1).id, 'new0');

      for (const [method, target, status, message] of [
        ['GET', '/admin/touch', 405, /^only POST$/], ['POST', '/admin/delete', 404, /^no such path; POST \/admin\/touch and POST \/admin\/add/],
        ['POST', '/admin/touch?count=many', 400, /^count must be an integer/], ['POST', '/admin/touch?id=n99', 400, /^no note has the id 'n99'$/],
        ['POST', '/admin/add?id=n1', 400, /count only/],
      ]) {
        const res = await request(server.url.replace(/\/notes$/, target), { method });
        assert.equal(res.status, status, target);
        assert.match(json(res).message, message, target);
      }
      const zero = json(await post(server.url, '/admin/add?count=0'));
      assert.deepEqual(zero, { added: [], count: 27, newest: minute(31) });
    } finally {
      const stopped = await server.stop();
      assert.equal(stopped.code, 0);
      stderr = stopped.stderr;
    }
    const lines = stderr.trimEnd().split('\n');
    assert.match(lines[0], /^notes-server: 25 generated notes \(page size 10, seed 7, with updates\), 3 pages, /);
    assert.match(lines.find((line) => line.startsWith('POST /admin/touch?count=3 ')), /^POST \/admin\/touch\?count=3 200 \d+B \d+\.\dms c=\d+ t=\d+$/);
    assert.ok(lines.some((line) => line.startsWith(`GET /notes?since=${minute(24)} 200 `)), stderr);
  });

  test('the same seed touches the same notes; the redirect target serves the changed notes, its admin is a 404', async () => {
    const servers = await Promise.all([startServer([...args, '--quiet', '--fault', 'redirect']), startServer([...args, '--quiet'])]);
    try {
      const [a, b] = await Promise.all(servers.map(async (server) => json(await post(server.url, '/admin/touch?count=4'))));
      assert.deepEqual(a, b);
      const redirected = await request(`${servers[0].url}?since=${minute(25)}`);
      assert.equal(redirected.status, 302);
      const target = await request(redirected.headers.location);
      assert.deepEqual(json(target).notes, a.touched);
      const admin = await request(new URL('/admin/touch', redirected.headers.location), { method: 'POST' });
      assert.equal(admin.status, 404);
    } finally {
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    }
  });

  test('faults act on the filtered pages: @PAGE is the page of the walk with since', async () => {
    const server = await startServer([...args, '--quiet', '--fault', '503@2x1']);
    try {
      const first = await request(`${server.url}?since=${minute(3)}`);
      assert.equal(first.status, 200);
      const second = pageUrl(server.url, json(first).next_cursor, `since=${minute(3)}`);
      assert.equal((await request(second)).status, 503);
      const retried = await request(second);
      assert.equal(retried.status, 200);
      assert.deepEqual(json(retried).notes.map((note) => note.id), Array.from({ length: 10 }, (_, i) => `n${i + 13}`));
      const duplicate = await request(pageUrl(server.url, json(first).next_cursor, `since=${minute(3)}&fault=duplicate-id`));
      assert.equal(json(duplicate).notes.at(-1).id, 'n3', 'the first note of the walk with since');
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });
});
