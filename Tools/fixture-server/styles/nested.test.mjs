// Unit tests of the GitHub-shaped nested API (nested.mjs): its paths, paging parameters, since, the
// pages and Link headers as GitHub writes them, and its answers to requests made up here. Run with
// `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../shared/errors.mjs';
import { NestedData } from '../notes/nested.mjs';
import { isNestedPath, lateNestedResponse, nestedResponse, pageOf, pageUrl, parseNestedPath, parseNestedSince, parsePaging } from './nested.mjs';
import { bytes } from '../testing/units.mjs';

describe('paths', () => {
  test('isNestedPath: /repos and below only', () => {
    assert.deepEqual(['/repos', '/repos/', '/repos/octo/repo-1', '/reposx', '/notes', '/'].map(isNestedPath), [true, true, true, false, false, false]);
  });

  test('parseNestedPath: each route, numbers without leading zeros, nothing else', () => {
    assert.deepEqual(parseNestedPath('/repos'), { route: 'repos', r: null, n: null });
    assert.deepEqual(parseNestedPath('/repos/octo/repo-12'), { route: 'repo', r: 12, n: null });
    assert.deepEqual(parseNestedPath('/repos/octo/repo-12/issues'), { route: 'issues', r: 12, n: null });
    assert.deepEqual(parseNestedPath('/repos/octo/repo-12/issues/3'), { route: 'issue', r: 12, n: 3 });
    assert.deepEqual(parseNestedPath('/repos/octo/repo-12/issues/3/comments'), { route: 'comments', r: 12, n: 3 });
    assert.deepEqual(parseNestedPath('/repos/octo/repo-12/issues/3/touch'), { route: 'touch', r: 12, n: 3 });
    for (const path of ['/repos/', '/repos/octo', '/repos/other/repo-1', '/repos/octo/repo-0', '/repos/octo/repo-01',
      '/repos/octo/repo-1/', '/repos/octo/repo-1/issues/', '/repos/octo/repo-1/issues/0', '/repos/octo/repo-1/pulls',
      '/repos/octo/repo-1/issues/1/comments/', '/repos/octo/repo-1/issues/1/events', '/repos/octo/repo-x/issues']) {
      assert.equal(parseNestedPath(path), null, path);
    }
  });
});

describe('paging', () => {
  const paging = (text) => parsePaging(new URLSearchParams(text));
  const refused = (fn) => assert.throws(fn, UsageError);

  test('parsePaging: page 1 and per_page 30 by default, per_page over 100 served as 100', () => {
    assert.deepEqual(paging(''), { page: 1, perPage: 30 });
    assert.deepEqual(paging('page=3&per_page=7'), { page: 3, perPage: 7 });
    assert.deepEqual(paging('per_page=100'), { page: 1, perPage: 100 });
    assert.deepEqual(paging('per_page=101'), { page: 1, perPage: 100 });
    assert.deepEqual(paging('per_page=100000000'), { page: 1, perPage: 100 });
    assert.deepEqual(paging('page=1000000'), { page: 1_000_000, perPage: 30 });
    for (const bad of ['page=0', 'page=-1', 'page=x', 'page=', 'page=1.5', 'page=1&page=2', 'per_page=0', 'per_page=a', 'page=99999999999999999999']) {
      refused(() => paging(bad));
    }
  });

  test('parseNestedSince: RFC 3339 date-times, else refused', () => {
    const since = (text) => parseNestedSince(new URLSearchParams(text));
    assert.equal(since(''), null);
    assert.equal(since('since=2026-01-02T00:00:00Z'), Date.UTC(2026, 0, 2));
    assert.equal(since('since=2026-01-02T01:00:00%2B01:00'), Date.UTC(2026, 0, 2));
    for (const bad of ['since=yesterday', 'since=2026-01-02', 'since=2026-01-02T00:00:00', 'since=', 'since=2026-01-02T01:00:00+01:00',
      'since=2026-01-02T00:00:00Z&since=2026-01-02T00:00:00Z']) {
      assert.throws(() => since(bad), UsageError, bad);
    }
  });

  test('pageOf: the page and its links in GitHub order (prev, next, last, first)', () => {
    const rels = (page) => page.links.map(({ rel, page: p }) => `${rel}=${p}`);
    assert.deepEqual(pageOf(95, 1, 30), { start: 0, end: 30, links: [{ rel: 'next', page: 2 }, { rel: 'last', page: 4 }] });
    assert.deepEqual(rels(pageOf(95, 2, 30)), ['prev=1', 'next=3', 'last=4', 'first=1']);
    assert.deepEqual(pageOf(95, 4, 30), { start: 90, end: 95, links: [{ rel: 'prev', page: 3 }, { rel: 'first', page: 1 }] });
    assert.deepEqual(pageOf(95, 9, 30), { start: 95, end: 95, links: [{ rel: 'prev', page: 8 }, { rel: 'first', page: 1 }] });
    assert.deepEqual(pageOf(90, 3, 30).links.map((l) => l.rel), ['prev', 'first']);
    assert.deepEqual(pageOf(30, 1, 30), { start: 0, end: 30, links: [] });
    assert.deepEqual(pageOf(0, 1, 30), { start: 0, end: 0, links: [] });
    assert.deepEqual(rels(pageOf(0, 2, 30)), ['prev=1', 'first=1']);
  });

  test("pageUrl: absolute, the request's other parameters kept, page set in place or added last", () => {
    const query = new URLSearchParams('per_page=2&since=2026-01-02T01:00:00%2B01:00&state=all');
    assert.equal(pageUrl('http://h:1', '/repos/octo/repo-1/issues', query, 3),
      'http://h:1/repos/octo/repo-1/issues?per_page=2&since=2026-01-02T01%3A00%3A00%2B01%3A00&state=all&page=3');
    assert.equal(pageUrl('http://h:1', '/repos', new URLSearchParams('page=2&per_page=5'), 1), 'http://h:1/repos?page=1&per_page=5');
    assert.equal(pageUrl('https://[::1]:8443', '/repos', new URLSearchParams(''), 2), 'https://[::1]:8443/repos?page=2');
  });
});

describe('nestedResponse', () => {
  const base = 'http://h:1';
  const ask = (state, target, { method = 'GET', headers = {} } = {}) => {
    const q = target.indexOf('?');
    const pathname = q === -1 ? target : target.slice(0, q);
    const req = { method, headers, resume() {} };
    const response = nestedResponse(req, pathname, new URLSearchParams(q === -1 ? '' : target.slice(q + 1)), state);
    return { status: response.status, headers: response.headers, json: JSON.parse(bytes(response.parts)) };
  };
  const serverState = (token = null) => ({ nested: new NestedData(45, 4, 3, 42), base, token });

  test('GET /repos: pages of repos by id, Link as GitHub, [] past the end', () => {
    const state = serverState();
    const first = ask(state, '/repos');
    assert.equal(first.status, 200);
    assert.deepEqual(first.json.map((repo) => repo.id), Array.from({ length: 30 }, (_, k) => k + 1));
    assert.equal(first.headers.Link, '<http://h:1/repos?page=2>; rel="next", <http://h:1/repos?page=2>; rel="last"');
    const second = ask(state, '/repos?page=2');
    assert.deepEqual(second.json.map((repo) => repo.id), Array.from({ length: 15 }, (_, k) => k + 31));
    assert.equal(second.headers.Link, '<http://h:1/repos?page=1>; rel="prev", <http://h:1/repos?page=1>; rel="first"');
    const past = ask(state, '/repos?per_page=20&page=5');
    assert.deepEqual([past.status, past.json], [200, []]);
    assert.equal(past.headers.Link, '<http://h:1/repos?per_page=20&page=4>; rel="prev", <http://h:1/repos?per_page=20&page=1>; rel="first"');
    assert.equal(ask(state, '/repos?per_page=500').json.length, 45);
    assert.equal(ask(state, '/repos?per_page=500').headers.Link, undefined);
  });

  test('issues by number, with since; comments by id; records and single resources', () => {
    const state = serverState();
    const { nested } = state;
    const r = [...Array(45).keys()].map((k) => k + 1).find((k) => nested.issueCount(k) >= 3);
    const issues = ask(state, `/repos/octo/repo-${r}/issues?per_page=100`).json;
    assert.deepEqual(issues, nested.issues(r, base));
    const times = issues.map((issue) => issue.updated_at).sort();
    for (const since of times) {
      const kept = ask(state, `/repos/octo/repo-${r}/issues?since=${since}`).json;
      assert.deepEqual(kept, issues.filter((issue) => issue.updated_at >= since));
    }
    const newest = Date.parse(times.at(-1));
    assert.deepEqual(ask(state, `/repos/octo/repo-${r}/issues?since=${new Date(newest).toISOString()}`).json.length >= 1, true);
    assert.deepEqual(ask(state, `/repos/octo/repo-${r}/issues?since=${new Date(newest + 1).toISOString()}`).json, []);
    const issue = issues.find((i) => i.comments > 0) ?? issues[0];
    const comments = ask(state, `/repos/octo/repo-${r}/issues/${issue.number}/comments`);
    assert.deepEqual(comments.json, nested.comments(r, issue.number, base));
    assert.equal(comments.json.length, issue.comments);
    assert.deepEqual(ask(state, `/repos/octo/repo-${r}`).json, nested.repo(r, base));
    assert.deepEqual(ask(state, `/repos/octo/repo-${r}/issues/${issue.number}`).json, issue);
  });

  test('404 {"message":"Not Found"} for a path, repo or issue that is not there; 405 with Allow; 400 for bad paging or since', () => {
    const state = serverState();
    const r = [...Array(45).keys()].map((k) => k + 1).find((k) => state.nested.issueCount(k) > 0);
    const empty = [...Array(45).keys()].map((k) => k + 1).find((k) => state.nested.issueCount(k) === 0);
    for (const target of ['/repos/octo/repo-46', '/repos/octo/repo-46/issues', `/repos/octo/repo-${empty}/issues/1/comments`,
      `/repos/octo/repo-${r}/issues/${state.nested.issueCount(r) + 1}`, '/repos/octo', '/repos/octo/repo-1/pulls', '/repos/']) {
      assert.deepEqual(ask(state, target), { status: 404, headers: ask(state, target).headers, json: { message: 'Not Found' } }, target);
    }
    const post = ask(state, '/repos', { method: 'POST' });
    assert.deepEqual([post.status, post.headers.Allow, post.json], [405, 'GET', { message: 'Method Not Allowed' }]);
    const get = ask(state, `/repos/octo/repo-${r}/issues/1/touch`);
    assert.deepEqual([get.status, get.headers.Allow], [405, 'POST']);
    for (const target of ['/repos?page=0', '/repos?page=two', `/repos/octo/repo-${r}/issues?since=2026`, `/repos/octo/repo-${r}/issues/1/comments?per_page=0`]) {
      const answer = ask(state, target);
      assert.equal(answer.status, 400, target);
      assert.deepEqual(Object.keys(answer.json), ['message']);
    }
    // since means nothing but on a repo's issues, as other unknown parameters.
    assert.equal(ask(state, '/repos?since=nonsense&sort=x').status, 200);
  });

  test('touch: 200 {id, updated_at}, and the issue serves it from then on', () => {
    const state = serverState();
    const r = [...Array(45).keys()].map((k) => k + 1).find((k) => state.nested.issueCount(k) > 0);
    const touched = ask(state, `/repos/octo/repo-${r}/issues/1/touch`, { method: 'POST' });
    assert.deepEqual(touched, { status: 200, headers: touched.headers, json: { id: state.nested.issue(r, 1, base).id, updated_at: '2026-01-31T00:00:00Z' } });
    assert.deepEqual(ask(state, `/repos/octo/repo-${r}/issues?since=2026-01-31T00:00:00Z`).json.map((issue) => issue.number), [1]);
  });

  test('with a token: 401 as the auth fault answers, on every path, unless the bearer token is presented', () => {
    const state = serverState('s3cret');
    for (const target of ['/repos', '/repos/octo/repo-1/issues', '/repos/octo/repo-99', '/repos/nothing']) {
      const answer = ask(state, target);
      assert.equal(answer.status, 401, target);
      assert.equal(answer.headers['WWW-Authenticate'], 'Bearer realm="notes"');
      assert.deepEqual(answer.json, { error: 'unauthorized', message: 'a bearer token is required' });
      assert.equal(ask(state, target, { headers: { authorization: 'Bearer wrong' } }).status, 401);
    }
    assert.equal(ask(state, '/repos', { headers: { authorization: 'Bearer s3cret' } }).status, 200);
    assert.equal(ask(state, '/repos/octo/repo-99', { headers: { authorization: 'Bearer s3cret' } }).status, 404);
  });
});

describe('lateNestedResponse (--latency)', () => {
  const base = 'http://h:1';
  const req = { method: 'GET', headers: {}, resume() {} };
  const state = (latency) => ({ nested: new NestedData(5, 2, 1, 42, true), base, token: null, nestedLatencyMs: latency });
  const sinceMs = (arrived) => Number(process.hrtime.bigint() - arrived) / 1e6;

  test('the response nestedResponse gives, no sooner than the latency after arrival; without latency at once', async () => {
    const slow = state(40);
    const arrived = process.hrtime.bigint();
    const late = await lateNestedResponse(req, '/repos', new URLSearchParams('per_page=2'), slow, arrived, new AbortController().signal);
    assert.ok(sinceMs(arrived) >= 40, `${sinceMs(arrived)} ms`);
    assert.deepEqual(late, nestedResponse(req, '/repos', new URLSearchParams('per_page=2'), slow));
    // Time already spent since arrival counts: a request that arrived 950 ms ago waits 50 ms more of 1000.
    const earlier = process.hrtime.bigint() - 950_000_000n;
    const start = process.hrtime.bigint();
    await lateNestedResponse(req, '/repos', new URLSearchParams(), state(1000), earlier, new AbortController().signal);
    assert.ok(sinceMs(earlier) >= 1000 && sinceMs(start) < 500, `${sinceMs(earlier)} ms after arrival, ${sinceMs(start)} ms waited`);
    const quick = process.hrtime.bigint();
    const now = await lateNestedResponse(req, '/repos/octo/repo-9', new URLSearchParams(), state(0), quick, new AbortController().signal);
    assert.equal(now.status, 404);
    assert.ok(sinceMs(quick) < 20);
  });

  test('an abort (the client left, the server stops) ends the wait with an AbortError; a touch acts on arrival', async () => {
    const slow = state(60_000);
    const gone = new AbortController();
    const start = process.hrtime.bigint();
    const pending = lateNestedResponse({ ...req, method: 'POST' }, '/repos/octo/repo-1/issues/2/touch', new URLSearchParams(), slow, start, gone.signal);
    assert.equal(slow.nested.issue(1, 2, base).updated_at, '2026-01-31T00:00:00Z');
    setTimeout(() => gone.abort(), 10);
    await assert.rejects(pending, { name: 'AbortError' });
    assert.ok(sinceMs(start) < 1000);
  });
});
