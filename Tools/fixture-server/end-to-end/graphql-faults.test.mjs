// End-to-end tests: the faults of POST /graphql, each as the usage text describes it, and the others that
// act there; the server runs as a child process on port 0 and is asked over HTTP (testing/harness.mjs). Run
// with `node --test Tools/`; only lower bounds of time are asserted.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { relayCursor } from '../styles/graphql.mjs';
import { ERROR_MESSAGE, graphql, needGraphQL, post } from '../testing/graphql.mjs';
import { request, startServer, withServer } from '../testing/harness.mjs';

describe('GraphQL faults', () => {
  let server;
  let base;
  before(async () => {
    needGraphQL();
    server = await startServer(['--count', '25'], { NOTES_SERVER_TOKEN: 'tok' });
    base = server.base;
  });
  after(async () => {
    if (server) assert.equal((await server.stop()).code, 0);
  });
  const pageQuery = 'query($first: Int, $after: String) { notes(first: $first, after: $after) { nodes { id title } pageInfo { hasNextPage endCursor } } }';
  /** Page `page` (1-based) of `first` notes, with the faults of `spec` (X-Notes-Fault). */
  const page = (number, spec, first = 10, extra = {}) => graphql(base, pageQuery, { first, after: number === 1 ? null : relayCursor((number - 1) * first - 1) },
    { headers: { 'X-Notes-Fault': spec, ...extra } });

  test('graphql-error@2: page 2 is 200 with data null and GitHub\'s error at path notes; pages 1 and 3 are fine', async () => {
    assert.equal((await page(1, 'graphql-error@2')).json.errors, undefined);
    const failed = await page(2, 'graphql-error@2');
    assert.equal(failed.status, 200);
    const column = pageQuery.indexOf('notes(') + 1;
    assert.deepEqual(failed.json, { data: null, errors: [{ message: ERROR_MESSAGE, locations: [{ line: 1, column }], path: ['notes'] }] });
    assert.equal((await page(3, 'graphql-error@2')).json.errors, undefined);
    // By page in first's terms: first 5 makes page 2 the notes 5-9.
    assert.equal((await page(2, 'graphql-error@2', 5)).json.errors[0].message, ERROR_MESSAGE);
    // Also on the nested path.
    const nested = await graphql(base, `{ viewer { notes(after: "${relayCursor(9)}") { totalCount } } }`, undefined, { headers: { 'X-Notes-Fault': 'graphql-error@2' } });
    assert.deepEqual(nested.json, { data: null, errors: [{ message: ERROR_MESSAGE, locations: [{ line: 1, column: 12 }], path: ['viewer', 'notes'] }] });
  });

  test('graphql-ratelimit@2: page 2 once, 200 RATE_LIMITED with x-ratelimit-remaining 0 and the reset a second on; the retry succeeds', async () => {
    const spec = 'graphql-ratelimit@2';
    const first = await page(1, spec);
    assert.equal(first.headers['x-ratelimit-remaining'], undefined);
    const now = Date.now() / 1000;
    const limited = await page(2, spec);
    assert.equal(limited.status, 200);
    assert.deepEqual(limited.json, { data: null, errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] });
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const reset = Number(limited.headers['x-ratelimit-reset']);
    assert.ok(reset >= Math.floor(now) + 1 && reset <= Math.ceil(now) + 2, `${reset} at ${now}`);
    const retried = await page(2, spec);
    assert.equal(retried.json.errors, undefined);
    assert.deepEqual(retried.json.data.notes.nodes.map((note) => note.id), ['n10', 'n11', 'n12', 'n13', 'n14', 'n15', 'n16', 'n17', 'n18', 'n19']);
    // A whole walk with the fault (its own counter: another spelling) meets it once and still gets every note once.
    const walked = [];
    let limits = 0;
    for (let after = null, more = true; more;) {
      const res = await graphql(base, pageQuery, { first: 10, after }, { headers: { 'X-Notes-Fault': 'graphql-ratelimit:0@3' } });
      if (res.json.errors) {
        assert.equal(res.json.errors[0].type, 'RATE_LIMITED');
        limits++;
        continue;
      }
      walked.push(...res.json.data.notes.nodes.map((note) => note.id));
      ({ hasNextPage: more, endCursor: after } = res.json.data.notes.pageInfo);
    }
    assert.equal(limits, 1);
    assert.deepEqual(walked, Array.from({ length: 25 }, (_, i) => `n${i}`));
  });

  test('graphql-cycle@3: page 3\'s endCursor is page 2\'s, hasNextPage true, so the walk comes back to page 3', async () => {
    const second = await page(2, 'graphql-cycle@3', 5);
    const third = await page(3, 'graphql-cycle@3', 5);
    assert.deepEqual(third.json.data.notes.nodes.map((note) => note.id), ['n10', 'n11', 'n12', 'n13', 'n14']);
    assert.deepEqual(third.json.data.notes.pageInfo, { hasNextPage: true, endCursor: second.json.data.notes.pageInfo.endCursor });
    const again = await graphql(base, pageQuery, { first: 5, after: third.json.data.notes.pageInfo.endCursor }, { headers: { 'X-Notes-Fault': 'graphql-cycle@3' } });
    assert.deepEqual(again.json, third.json);
  });

  test('graphql-endless@2: from page 2 on hasNextPage stays true; past the last note the endCursor repeats', async () => {
    const headers = { 'X-Notes-Fault': 'graphql-endless@2' };
    const seen = [];
    let after = null;
    for (let i = 0; i < 6; i++) {
      const res = await graphql(base, pageQuery, { first: 10, after }, { headers });
      assert.equal(res.json.errors, undefined);
      seen.push(res.json.data.notes);
      after = res.json.data.notes.pageInfo.endCursor;
    }
    assert.deepEqual(seen.map((connection) => connection.nodes.length), [10, 10, 5, 0, 0, 0]);
    assert.deepEqual(seen.map((connection) => connection.pageInfo.hasNextPage), [true, true, true, true, true, true]);
    assert.deepEqual(seen.slice(2).map((connection) => connection.pageInfo.endCursor), Array(4).fill(relayCursor(24)));
    // Page 1 is not affected: without the fault, page 3 ends the walk.
    assert.equal((await page(3, '')).json.data.notes.pageInfo.hasNextPage, false);
  });

  test('status faults by page, with Retry-After: 503@2, 429:3@2, 500', async () => {
    for (const [spec, status, retryAfter] of [['503@2', 503, '1'], ['429:3@2', 429, '3'], ['500@2', 500, undefined]]) {
      assert.equal((await page(1, spec)).status, 200, spec);
      const res = await page(2, spec);
      assert.equal(res.status, status, spec);
      assert.equal(res.headers['retry-after'], retryAfter);
      assert.deepEqual(res.json, { error: 'injected', status });
    }
    // Chosen in the query as well.
    assert.equal((await graphql(base, pageQuery, { first: 10 }, { target: '/graphql?fault=502' })).status, 502);
  });

  test('delay, reset, truncate, html and content-type act on /graphql as on any page', async () => {
    const started = performance.now();
    assert.equal((await page(1, 'delay:200')).status, 200);
    assert.ok(performance.now() - started >= 200);
    await assert.rejects(page(1, 'reset'), { code: 'ECONNRESET' });
    await assert.rejects(page(1, 'truncate'), { code: 'ECONNRESET' });
    const html = await page(2, 'html@2');
    assert.match(html.headers['content-type'], /^text\/html/);
    assert.equal((await page(1, 'content-type')).headers['content-type'], 'text/plain; charset=utf-8');
    const remaining = await page(1, 'remaining-zero');
    assert.equal(remaining.headers['x-ratelimit-remaining'], '0');
    assert.equal(remaining.json.errors, undefined);
  });

  test('auth: 401 without the bearer token, the page with it', async () => {
    assert.equal((await page(1, 'auth')).status, 401);
    const authorized = await page(1, 'auth', 10, { Authorization: 'Bearer tok' });
    assert.equal(authorized.status, 200);
    assert.equal(authorized.json.data.notes.nodes.length, 10);
  });

  test('duplicate-id and huge-title alter the notes; shift, cycle and deep do not act on /graphql', async () => {
    const duplicated = await page(2, 'duplicate-id@2');
    assert.deepEqual(duplicated.json.data.notes.nodes.map((note) => note.id).slice(-2), ['n18', 'n0']);
    const huge = await page(1, 'huge-title:100');
    assert.equal(huge.json.data.notes.nodes[0].title, 'huge title '.repeat(10).slice(0, 100));
    for (const spec of ['cycle', 'deep', 'shift:2']) {
      const res = await page(2, spec);
      assert.equal(res.status, 200, spec);
      assert.deepEqual(res.json.data.notes.nodes.map((note) => note.id)[0], 'n10', spec);
      assert.equal(res.json.data.notes.pageInfo.endCursor, relayCursor(19), spec);
    }
  });

  test('redirect:307 sends the POST to the redirect target, which executes it too', async () => {
    const res = await page(1, 'redirect:307');
    assert.equal(res.status, 307);
    const target = await post(res.headers.location, { query: pageQuery, variables: { first: 3 } });
    assert.equal(target.status, 200);
    assert.deepEqual(target.json.data.notes.nodes.map((note) => note.id), ['n0', 'n1', 'n2']);
    const forwarded = await post(res.headers.location, { query: pageQuery }, { headers: { Authorization: 'Bearer tok' } });
    assert.equal(forwarded.status, 400);
  });
});

describe('GraphQL faults set by flag, and the log', () => {
  before(needGraphQL);

  test('--fault graphql-error@2 acts on /graphql only; other faults on every endpoint; the log names the faults that fired', async () => {
    const responses = [];
    const { code, lines } = await withServer(['--count', '25', '--page-size', '10', '--fault', 'graphql-error@2,503@3x1'], {}, async ({ url, base }) => {
      // GET /notes: page 2 is fine, page 3 is the 503 (once).
      const page1 = await request(url);
      const page2 = await request(`${url}?cursor=${encodeURIComponent(page1.json.next_cursor)}`);
      const page3 = await request(`${url}?cursor=${encodeURIComponent(page2.json.next_cursor)}`);
      responses.push(page2.status, page3.status);
      for (const after of [null, relayCursor(9), relayCursor(19)]) {
        responses.push((await graphql(base, 'query($a: String) { notes(after: $a) { nodes { id } } }', { a: after })).json);
      }
    });
    assert.equal(code, 0);
    const [rest2, rest3, ok, failed, last] = responses;
    assert.deepEqual([rest2, rest3], [200, 503]);
    assert.equal(ok.errors, undefined);
    assert.equal(failed.errors[0].message, ERROR_MESSAGE);
    assert.equal(last.errors, undefined, 'the 503 fired once, on GET /notes');
    const logged = lines.slice(1);
    assert.match(logged[2], /^GET \/notes\?cursor=\S+ 503 .* fault=503@3x1 c=3 /);
    assert.match(logged[4], /^POST \/graphql 200 \d+B \d+\.\dms graphql=query vars=\{"a":"YXJyYXljb25uZWN0aW9uOjk="\} fault=graphql-error@2 c=5 /);
    assert.ok(!logged.some((line) => line.startsWith('GET') && line.includes('graphql-error')), logged.join('\n'));
    assert.equal(logged.length, 6);
  });
});
