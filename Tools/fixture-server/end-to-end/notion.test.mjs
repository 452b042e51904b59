// End-to-end tests: POST /v1/databases/notes/query, the Notion-style query, and both POST endpoints over a
// notes-gen directory; the server runs as a child process on port 0 and is asked over HTTP
// (testing/harness.mjs). Run with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { notionCursor } from '../styles/notion.mjs';
import { asGraphQL, graphql, needGraphQL, nodesOf, NOTION, post, restNotes, walkGraphQL, walkNotion } from '../testing/graphql.mjs';
import { JSON_TYPE, request, startServer, withServer } from '../testing/harness.mjs';

describe('POST /graphql and the Notion-style query over a notes-gen directory', () => {
  // Notes with every member notes-gen writes: nested meta, tags, escapes, null, the key "naïve".
  const PAGES = [
    '[{"id":"a1","title":"first","created":"2024-03-14T09:26:53Z","tags":["x","y"],"rank":-5,"score":1.50e3,"pinned":true,'
      + '"meta":{"author":{"id":7,"name":"Zo\\u00eb"},"edits":3,"history":[{"at":"2020-01-01T00:00:00Z","by":null}],"flags":{}}},'
      + '{"title":"second","id":"a\\/2","na\\u00efve":true,"archived":null,"updated":null,"excerpt":"ex \\"q\\""}]',
    '[{"id":"a3","title":"日本語 😀","big":-9223372036854775808,"tags":[]}]',
    '[{"id":"a4","title":"four","score":6e+23},{"id":"a5","title":"five"}]',
  ];
  const CURSORS = [null, 'pA+/Zw==', 'x/y z?&#='];
  let dir;
  let server;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'notes-server-post-'));
    mkdirSync(path.join(dir, 'pages'));
    const entries = PAGES.map((items, i) => {
      const head = '{"notes":';
      const file = `pages/0000${i}.json`;
      writeFileSync(path.join(dir, file), `${head}${items},"next_cursor":${JSON.stringify(CURSORS[i + 1] ?? null)}}`);
      const entry = { file, cursor: CURSORS[i], next_cursor: CURSORS[i + 1] ?? null, items: [head.length, head.length + Buffer.byteLength(items)] };
      // Page 2's entry has no count: the server reads the page to count it.
      return i === 1 ? entry : { ...entry, notes: JSON.parse(items).length };
    });
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ format: 'notes-gen/1', count: 5, page_size: 2, seed: 0, faults: [], pages: entries }));
    server = await startServer(['--dir', dir, '--quiet']);
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
    if (dir) rmSync(dir, { recursive: true });
  });

  test('walks across the page files: every note once, in order, each member as GET /notes serves it; meta as JSON, naïve as naive', async () => {
    needGraphQL();
    const rest = await restNotes(server.url);
    assert.equal(rest.length, 5);
    for (const first of [1, 2, 3, 100]) {
      const pages = await walkGraphQL(server.base, { first });
      assert.deepEqual(pages.flatMap(nodesOf), rest.map(asGraphQL), `first ${first}`);
      assert.ok(pages.every((page) => page.totalCount === 5));
    }
    const [node] = nodesOf((await walkGraphQL(server.base, { first: 1 }))[0]);
    assert.deepEqual(node.meta, { author: { id: 7, name: 'Zoë' }, edits: 3, history: [{ at: '2020-01-01T00:00:00Z', by: null }], flags: {} });
    assert.deepEqual(node.tags, ['x', 'y']);
    assert.equal(node.score, 1500);
    const second = await graphql(server.base, '{ node(id: "a/2") { id excerpt naive archived updated } }');
    assert.deepEqual(second.json.data.node, { id: 'a/2', excerpt: 'ex "q"', naive: true, archived: null, updated: null });
    assert.deepEqual((await graphql(server.base, '{ node(id: "a6") { id } }')).json.data.node, null);
  });

  test('the Notion-style query walks the directory too, byte for byte the notes of GET /notes', async () => {
    const pages = await walkNotion(server.base, { pageSize: 2 });
    assert.deepEqual(pages.flatMap((body) => body.results), await restNotes(server.url));
  });
});

describe('POST /v1/databases/notes/query (Notion) over generated notes', () => {
  let server;
  let base;
  let rest;
  before(async () => {
    server = await startServer(['--count', '250', '--page-size', '100', '--seed', '7']);
    base = server.base;
    rest = await restNotes(server.url);
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
  });

  test('a walk by default (page_size 100): every note once, in order, byte for byte as GET /notes; Notion\'s envelope', async () => {
    const pages = await walkNotion(base);
    assert.deepEqual(pages.map((body) => body.results.length), [100, 100, 50]);
    assert.deepEqual(pages.flatMap((body) => body.results), rest);
    for (const [i, body] of pages.entries()) {
      const last = i === pages.length - 1;
      assert.deepEqual(Object.keys(body), ['object', 'results', 'next_cursor', 'has_more', 'type']);
      assert.equal(body.object, 'list');
      assert.equal(body.type, 'page_database');
      assert.equal(body.has_more, !last);
      assert.equal(body.next_cursor, last ? null : notionCursor((i + 1) * 100));
      assert.match(body.next_cursor ?? '00000000-0000-4000-8000-000000000000', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // The bytes of the notes are those of GET /notes: the page's notes array, re-wrapped.
    const first = await post(`${base}${NOTION}`, {});
    const restPage = (await request(server.url)).body.toString();
    assert.ok(first.body.toString().startsWith(`{"object":"list","results":${restPage.slice('{"notes":'.length, restPage.lastIndexOf(',"next_cursor"'))},"next_cursor":`));
  });

  test('page_size 7, and an empty body: the same notes', async () => {
    const pages = await walkNotion(base, { pageSize: 7 });
    assert.equal(pages.length, 36);
    assert.deepEqual(pages.flatMap((body) => body.results), rest);
    const empty = await request(`${base}${NOTION}`, { method: 'POST' });
    assert.equal(empty.status, 200);
    assert.equal(empty.json.results.length, 100);
  });

  test('Notion\'s errors: a bad cursor, page_size over 100, a body that is no JSON; 405 for GET', async () => {
    for (const [body, message] of [[{ start_cursor: 'nope' }, 'The start_cursor provided is invalid: nope'],
      [{ start_cursor: notionCursor(250) }, `The start_cursor provided is invalid: ${notionCursor(250)}`],
      [{ page_size: 101 }, 'body failed validation: body.page_size should be less than or equal to `100`, instead was `101`.'],
      [{ start_cursor: null }, 'body failed validation: body.start_cursor should be a string or `undefined`, instead was `null`.']]) {
      const res = await post(`${base}${NOTION}`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assert.deepEqual(res.json, { object: 'error', status: 400, code: 'validation_error', message });
    }
    const invalid = await post(`${base}${NOTION}`, null, { raw: '{"page_size":' });
    assert.deepEqual(invalid.json, { object: 'error', status: 400, code: 'invalid_json', message: 'Error parsing JSON body.' });
    const get = await request(`${base}${NOTION}`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.allow, 'POST');
    assert.equal(get.json.object, 'error');
  });

  test('faults by page (floor(position / page_size) + 1): 503 with Retry-After, 429, 500; cycle; duplicate-id', async () => {
    const at = (number, spec, pageSize = 100) => post(`${base}${NOTION}`, number === 1 ? { page_size: pageSize } : { page_size: pageSize, start_cursor: notionCursor((number - 1) * pageSize) },
      { headers: { 'X-Notes-Fault': spec } });
    for (const [spec, status, retryAfter] of [['503:2@2', 503, '2'], ['429@2', 429, '1'], ['500@2', 500, undefined]]) {
      assert.equal((await at(1, spec)).status, 200, spec);
      const res = await at(2, spec);
      assert.equal(res.status, status, spec);
      assert.equal(res.headers['retry-after'], retryAfter, spec);
    }
    assert.equal((await at(3, '500@3', 10)).status, 500);
    const cycled = await at(3, 'cycle@3');
    assert.equal(cycled.json.next_cursor, notionCursor(100));
    assert.equal(cycled.json.has_more, true);
    const duplicated = await at(2, 'duplicate-id@2');
    assert.equal(duplicated.json.results.at(-1).id, rest[0].id);
    assert.equal(duplicated.json.results[0].id, rest[100].id);
    // The GraphQL faults do not act here.
    assert.equal((await at(2, 'graphql-error@2')).status, 200);
  });

  test('a walk through a 503 once (retried) still gets every note once; delay', async () => {
    const notes = [];
    let retries = 0;
    for (let cursor, more = true; more;) {
      const res = await post(`${base}${NOTION}`, { start_cursor: cursor, page_size: 50 }, { headers: { 'X-Notes-Fault': '503:0@3x1' } });
      if (res.status === 503) {
        retries++;
        continue;
      }
      notes.push(...res.json.results);
      ({ next_cursor: cursor, has_more: more } = res.json);
    }
    assert.equal(retries, 1);
    assert.deepEqual(notes, rest);
    const started = performance.now();
    assert.equal((await post(`${base}${NOTION}`, {}, { headers: { 'X-Notes-Fault': 'delay:150' } })).status, 200);
    assert.ok(performance.now() - started >= 150);
  });
});

describe('the Notion-style query in the log', () => {
  test('each request\'s body, compact, without spaces', async () => {
    const { code, lines } = await withServer(['--count', '5'], {}, async ({ base }) => {
      await walkNotion(base, { pageSize: 2 });
      await post(`${base}${NOTION}`, { page_size: 500, filter: { property: 'a b' } });
    });
    assert.equal(code, 0);
    const logged = lines.slice(1);
    assert.match(logged[0], /^POST \/v1\/databases\/notes\/query 200 \d+B \d+\.\dms body=\{"page_size":2\} c=1 t=\d+$/);
    assert.ok(logged[1].includes(` body={"start_cursor":"${notionCursor(2)}","page_size":2} `), logged[1]);
    assert.ok(logged[2].includes(` body={"start_cursor":"${notionCursor(4)}","page_size":2} `), logged[2]);
    assert.match(logged[3], /^POST \/v1\/databases\/notes\/query 400 \d+B \d+\.\dms body=\{"page_size":500,"filter":\{"property":"a\\u0020b"\}\} c=4 /);
    assert.equal(logged.length, 4);
  });
});
