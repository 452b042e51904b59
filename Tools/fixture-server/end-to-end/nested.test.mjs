// End-to-end tests: the GitHub-shaped nested API of --repos (repos, issues, comments); the server runs
// as a child process on port 0 and is asked over HTTP (testing/harness.mjs). Run with `node --test
// Tools/`; no time is asserted but --latency's (at least its wait, and well under a second).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { json, nextLink, request, runServer, startServer, timed, withServer } from '../testing/harness.mjs';
import { makeNotesDir } from '../testing/notes-dir.mjs';

/** The links of a Link header by rel: `{next: URL, last: URL, …}`. */
function linksOf(header) {
  return Object.fromEntries([...(header ?? '').matchAll(/<([^>]*)>\s*;\s*rel="([^"]*)"/g)].map(([, url, rel]) => [rel, url]));
}

/**
 * Follows a list from `url` by its Link rel="next" to the end, checking each page's links as GitHub
 * writes them (next and last before the last page, prev and first after the first, absolute, the
 * request's other parameters kept); returns every item and the responses.
 */
async function walkList(url, options) {
  const items = [];
  const responses = [];
  const firstUrl = new URL(url);
  let lastPage = null; // what page 1's rel="last" names
  for (let next = url, page = 1; next !== null; page++) {
    const response = await request(next, options);
    assert.equal(response.status, 200, next);
    const links = linksOf(response.headers.link);
    const rels = Object.keys(links);
    const isLast = nextLink(response.headers.link) === null;
    assert.deepEqual(rels, [...(page > 1 ? ['prev'] : []), ...(isLast ? [] : ['next', 'last']), ...(page > 1 ? ['first'] : [])], next);
    for (const [rel, link] of Object.entries(links)) {
      const target = new URL(link);
      assert.equal(target.origin, firstUrl.origin);
      assert.equal(target.pathname, firstUrl.pathname);
      const expectedPage = { prev: page - 1, next: page + 1, first: 1 }[rel];
      if (expectedPage !== undefined) assert.equal(target.searchParams.get('page'), String(expectedPage), `${rel} of ${next}`);
      for (const [name, value] of firstUrl.searchParams) if (name !== 'page') assert.equal(target.searchParams.get(name), value, `${name} in ${link}`);
    }
    if (page === 1 && links.last) lastPage = new URL(links.last).searchParams.get('page');
    items.push(...json(response));
    responses.push(response);
    next = nextLink(response.headers.link);
  }
  // Page 1's last link names the page that the walk ended on.
  if (lastPage !== null) assert.equal(lastPage, String(responses.length));
  return { items, responses };
}

/** Every id of a list of records is there once. */
const assertUnique = (records, what) => assert.equal(new Set(records.map((record) => record.id)).size, records.length, what);

describe('the nested API (--repos)', () => {
  test('without --repos, /repos is a path like any other (404)', async () => {
    const server = await startServer(['--count', '3', '--quiet']);
    try {
      const answer = await request(`${server.base}/repos`);
      assert.equal(answer.status, 404);
      assert.match(json(answer).message, /^no such path; pages are at \/notes/);
      assert.equal((await request(`${server.base}/repos?x`)).status, 404);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('a walk from /repos by Link headers: every repo, issue and comment once, counts as the comments member says, each request logged', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let requests = 0; // as many as the log must show
    const { code, lines } = await withServer(['--count', '5', '--repos', '40', '--issues', '3', '--comments', '2', '--seed', '7'], {}, async (server) => {
      const { items: repos, responses } = await walkList(`${server.base}/repos?per_page=7`, { agent });
      requests += responses.length;
      assert.deepEqual(repos.map((repo) => repo.id), Array.from({ length: 40 }, (_, k) => k + 1));
      assert.deepEqual(repos.map((repo) => repo.full_name), repos.map((repo) => `octo/repo-${repo.id}`));
      const issues = [];
      const comments = [];
      let emptyRepos = 0;
      let silentIssues = 0;
      for (const repo of repos) {
        assert.equal(repo.issues_url, `${server.base}/repos/octo/repo-${repo.id}/issues`);
        const walked = await walkList(`${repo.issues_url}?per_page=2`, { agent });
        requests += walked.responses.length;
        assert.deepEqual(walked.items.map((issue) => issue.number), walked.items.map((_, k) => k + 1));
        if (walked.items.length === 0) emptyRepos++;
        for (const issue of walked.items) {
          assert.equal(issue.repository_url, `${server.base}/repos/octo/repo-${repo.id}`);
          assert.equal(issue.state, 'open');
          const ofIssue = await walkList(`${issue.comments_url}?per_page=2`, { agent });
          requests += ofIssue.responses.length;
          assert.equal(ofIssue.items.length, issue.comments, issue.comments_url);
          if (issue.comments === 0) {
            silentIssues++;
            assert.equal(ofIssue.responses[0].headers.link, undefined);
            assert.equal(ofIssue.responses[0].body.toString(), '[]');
          }
          for (const comment of ofIssue.items) assert.equal(comment.issue_url, `${repo.issues_url}/${issue.number}`);
          assert.deepEqual(ofIssue.items.map((comment) => comment.id), ofIssue.items.map((comment) => comment.id).sort((a, b) => a - b));
          comments.push(...ofIssue.items);
        }
        issues.push(...walked.items);
      }
      assertUnique(issues, 'issues');
      assertUnique(comments, 'comments');
      assert.ok(emptyRepos > 0 && silentIssues > 0, `${emptyRepos} repos without issues, ${silentIssues} issues without comments`);
      assert.deepEqual(issues.map((issue) => issue.id), issues.map((_, k) => 1_000_001 + k));
      assert.deepEqual(comments.map((comment) => comment.id), comments.map((_, k) => 500_000_001 + k));
      for (const record of [...repos, ...issues, ...comments]) assert.match(record.updated_at, /^2026-01-[0-3]\dT\d{2}:\d{2}:\d{2}Z$/);
      // The same seed gives the same walk; the single resources are the records the lists serve.
      assert.deepEqual(json(await request(`${server.base}/repos/octo/repo-3`)), repos[2]);
      assert.deepEqual(json(await request(`${issues[0].repository_url}/issues/${issues[0].number}`)), issues[0]);
      requests += 2;
    });
    agent.destroy();
    assert.equal(code, 0);
    const logged = lines.slice(1); // after the start-up line, a line per request
    assert.equal(logged.length, requests);
    assert.ok(logged.every((line) => /^GET \/repos\S* 200 \d+B [\d.]+ms c=\d+ t=\d+$/.test(line)), logged.find((line) => !/ 200 /.test(line)));
  });

  test('since, touch, pages past the end, clamping, 404, 405 and 400', async () => {
    const server = await startServer(['--count', '0', '--repos', '250', '--issues', '6', '--comments', '1', '--quiet']);
    const base = server.base;
    try {
      // A repo with at least three issues.
      const repos = json(await request(`${base}/repos?per_page=100`));
      assert.equal(repos.length, 100);
      let r = null;
      let issues = null;
      for (const repo of repos) {
        issues = json(await request(`${repo.issues_url}?per_page=100`));
        if (issues.length >= 3) { r = repo.id; break; }
      }
      assert.ok(r !== null);
      const issuesUrl = `${base}/repos/octo/repo-${r}/issues`;

      // per_page over 100 is served as 100; the default is 30.
      const clamped = await request(`${base}/repos?per_page=500`);
      assert.equal(json(clamped).length, 100);
      assert.equal(linksOf(clamped.headers.link).next, `${base}/repos?per_page=500&page=2`);
      assert.equal(new URL(linksOf(clamped.headers.link).last).searchParams.get('page'), '3');
      assert.equal(json(await request(`${base}/repos`)).length, 30);
      assert.equal(new URL(linksOf((await request(`${base}/repos`)).headers.link).last).searchParams.get('page'), '9');

      // Past the end: [] and 200, with prev and first only.
      const past = await request(`${base}/repos?per_page=100&page=7`);
      assert.equal(past.status, 200);
      assert.deepEqual(json(past), []);
      assert.deepEqual(linksOf(past.headers.link), { prev: `${base}/repos?per_page=100&page=6`, first: `${base}/repos?per_page=100&page=1` });
      assert.deepEqual(json(await request(`${issuesUrl}?page=2`)), []);

      // since keeps the issues updated at or after it, and stays in the Link URLs.
      const times = issues.map((issue) => issue.updated_at).sort();
      for (const since of times) {
        const kept = await walkList(`${issuesUrl}?per_page=1&since=${since}`);
        assert.deepEqual(kept.items, issues.filter((issue) => issue.updated_at >= since));
      }
      // The oldest time as local time at +01:00 (a + percent-encoded), and one second later.
      const atOffset = (ms) => new Date(ms + 3600_000).toISOString().replace('.000Z', '%2B01:00');
      const oldest = Date.parse(times[0]);
      assert.deepEqual(json(await request(`${issuesUrl}?per_page=100&since=${atOffset(oldest)}`)), issues);
      assert.deepEqual(json(await request(`${issuesUrl}?per_page=100&since=${atOffset(oldest + 1000)}`)),
        issues.filter((issue) => Date.parse(issue.updated_at) > oldest));
      assert.deepEqual(json(await request(`${issuesUrl}?since=2026-03-01T00:00:00Z`)), []);

      // touch: later than everything, strictly increasing; the issue changes its updated_at and nothing else.
      const touch = (n) => request(`${issuesUrl}/${n}/touch`, { method: 'POST' });
      const first = await touch(2);
      assert.equal(first.status, 200);
      assert.deepEqual(json(first), { id: issues[1].id, updated_at: '2026-01-31T00:00:00Z' });
      const second = json(await touch(3));
      assert.equal(second.updated_at, '2026-01-31T00:00:01Z');
      assert.deepEqual(json(await request(`${issuesUrl}?since=${second.updated_at}`)).map((issue) => issue.number), [3]);
      assert.deepEqual(json(await request(`${issuesUrl}?since=${json(first).updated_at}`)).map((issue) => issue.number), [2, 3]);
      const after = json(await request(`${issuesUrl}?per_page=100`));
      assert.deepEqual(after.map(({ updated_at: _, ...rest }) => rest), issues.map(({ updated_at: _, ...rest }) => rest));
      const expected = issues.map((issue) => issue.updated_at);
      [expected[1], expected[2]] = [json(first).updated_at, second.updated_at];
      assert.deepEqual(after.map((issue) => issue.updated_at), expected);
      assert.ok(Date.parse(json(await touch(2)).updated_at) > Date.parse(second.updated_at));
      assert.deepEqual(json(await request(`${base}/repos/octo/repo-${r === 1 ? 2 : 1}`)), repos[r === 1 ? 1 : 0]);

      // 404 in GitHub's form for what is not there.
      for (const target of ['/repos/octo/repo-251', '/repos/octo/repo-0/issues', `/repos/octo/repo-${r}/issues/${issues.length + 1}/comments`,
        `/repos/octo/repo-${r}/issues/${issues.length + 1}/touch`, '/repos/octo/repo-1/pulls', '/repos/other/repo-1/issues', '/repos/']) {
        const answer = await request(`${base}${target}`);
        assert.equal(answer.status, 404, target);
        assert.deepEqual(json(answer), { message: 'Not Found' }, target);
      }
      // 405 with Allow.
      for (const [method, target, allow] of [['POST', '/repos', 'GET'], ['DELETE', `/repos/octo/repo-${r}/issues`, 'GET'],
        ['HEAD', `/repos/octo/repo-${r}/issues/1/comments`, 'GET'], ['GET', `/repos/octo/repo-${r}/issues/1/touch`, 'POST']]) {
        const answer = await request(`${base}${target}`, { method });
        assert.equal(answer.status, 405, `${method} ${target}`);
        assert.equal(answer.headers.allow, allow);
      }
      // 400 with a JSON message.
      for (const target of ['/repos?page=0', '/repos?page=-2', '/repos?page=1.5', '/repos?per_page=x', `/repos/octo/repo-${r}/issues?since=yesterday`,
        `/repos/octo/repo-${r}/issues?since=2026-01-02`, `/repos/octo/repo-${r}/issues/1/comments?page=abc`]) {
        const answer = await request(`${base}${target}`);
        assert.equal(answer.status, 400, target);
        assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(typeof json(answer).message, 'string', target);
      }
      // /notes is as ever.
      assert.deepEqual(json(await request(server.url)), { notes: [], next_cursor: null });
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('with a token, every nested route needs Authorization: Bearer, as the auth fault does; the log never shows it', async () => {
    const TOKEN = 'nested-Token_123';
    const { code, lines } = await withServer(['--count', '3', '--repos', '3'], { NOTES_SERVER_TOKEN: TOKEN }, async (server) => {
      const bearer = { authorization: `Bearer ${TOKEN}` };
      for (const target of ['/repos', '/repos/octo/repo-1/issues', '/repos/octo/repo-9', '/repos/octo/repo-1/issues/1/touch']) {
        const answer = await request(`${server.base}${target}`);
        assert.equal(answer.status, 401, target);
        assert.equal(answer.headers['www-authenticate'], 'Bearer realm="notes"');
        assert.deepEqual(json(answer), { error: 'unauthorized', message: 'a bearer token is required' });
        assert.equal((await request(`${server.base}${target}`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
      }
      const repos = await walkList(`${server.base}/repos?per_page=2`, { headers: bearer });
      assert.equal(repos.items.length, 3);
      assert.equal((await request(`${server.base}/repos/octo/repo-1/issues`, { headers: bearer })).status, 200);
      assert.equal((await request(`${server.base}/repos/octo/repo-9`, { headers: bearer })).status, 404);
      // /notes asks for the token only with the auth fault, as before.
      assert.equal((await request(server.url)).status, 200);
    });
    assert.equal(code, 0);
    assert.ok(!lines.some((line) => line.includes(TOKEN)));
    assert.ok(lines.some((line) => /^GET \/repos 401 /.test(line)));
  });

  test('URLs name --url-host; --dir takes --repos and --seed; 2,000 repos serve at once; the start-up line names them', async () => {
    const fixture = makeNotesDir();
    try {
      const { code, lines } = await withServer(['--dir', fixture.dir, '--repos', '4', '--seed', '11', '--url-host', 'localhost'], {}, async (server) => {
        assert.match(server.base, /^http:\/\/localhost:\d+$/);
        const repos = json(await request(`${server.base}/repos`, { family: 4 }));
        assert.equal(repos.length, 4);
        assert.equal(repos[0].issues_url, `${server.base}/repos/octo/repo-1/issues`);
        assert.equal((await request(server.url, { family: 4 })).status, 200);
      });
      assert.equal(code, 0);
      assert.match(lines[0], /^notes-server: directory .*; 4 repos at \/repos \(issues 4, comments 3 on average\); redirect target /);
    } finally {
      rmSync(fixture.dir, { recursive: true, force: true });
    }
    const server = await startServer(['--count', '1', '--repos', '2000', '--issues', '10', '--comments', '5', '--quiet']);
    try {
      const repos = json(await request(`${server.base}/repos?page=20&per_page=100`));
      assert.equal(repos.at(-1).id, 2000);
      const issues = await walkList(`${repos.at(-1).issues_url}?per_page=100`);
      for (const issue of issues.items.slice(0, 3)) assert.equal((await walkList(issue.comments_url)).items.length, issue.comments);
    } finally {
      assert.equal((await server.stop()).code, 0);
    }
  });

  test('--fixed: every repo exactly --issues issues, every issue exactly --comments comments, ids unique and running on', async () => {
    const { code, lines } = await withServer(['--count', '1', '--repos', '3', '--issues', '5', '--comments', '2', '--fixed'], {}, async (server) => {
      const { items: repos } = await walkList(`${server.base}/repos?per_page=2`);
      assert.deepEqual(repos.map((repo) => repo.id), [1, 2, 3]);
      const issues = [];
      const comments = [];
      for (const repo of repos) {
        const walked = await walkList(`${repo.issues_url}?per_page=2`);
        assert.deepEqual(walked.items.map((issue) => issue.number), [1, 2, 3, 4, 5], repo.issues_url);
        assert.equal(walked.responses.length, 3);
        for (const issue of walked.items) {
          assert.equal(issue.comments, 2);
          const ofIssue = await walkList(`${issue.comments_url}?per_page=1`);
          assert.equal(ofIssue.items.length, 2, issue.comments_url);
          comments.push(...ofIssue.items);
        }
        issues.push(...walked.items);
      }
      assert.equal(issues.length, 15);
      assert.equal(comments.length, 30);
      assertUnique(issues, 'issues');
      assertUnique(comments, 'comments');
      assert.deepEqual(issues.map((issue) => issue.id), issues.map((_, k) => 1_000_001 + k));
      assert.deepEqual(comments.map((comment) => comment.id), comments.map((_, k) => 500_000_001 + k));
      // A per_page of 100 over 300 issues: three full pages, the last without next.
      const big = await startServer(['--count', '1', '--repos', '2', '--issues', '300', '--comments', '0', '--fixed', '--quiet']);
      try {
        const walked = await walkList(`${big.base}/repos/octo/repo-2/issues?per_page=100`);
        assert.equal(walked.responses.length, 3);
        assert.deepEqual(walked.items.map((issue) => issue.id), walked.items.map((_, k) => 1_000_301 + k));
      } finally {
        assert.equal((await big.stop()).code, 0);
      }
    });
    assert.equal(code, 0);
    assert.match(lines[0], /; 3 repos at \/repos \(issues 5, comments 2 each\); redirect target /);
  });

  test('--latency: every nested response waits its milliseconds (not /notes); a client that leaves meanwhile and a stop meanwhile are fine', async () => {
    const { code, lines } = await withServer(['--count', '1', '--repos', '3', '--latency', '50'], {}, async (server) => {
      for (const target of ['/repos?per_page=2', '/repos/octo/repo-1/issues', '/repos/octo/repo-9', '/repos?page=0']) {
        const answer = await timed(request(`${server.base}${target}`));
        assert.ok(answer.ms >= 50 && answer.ms < 1000, `${target}: ${answer.ms} ms`);
        assert.equal(answer.status, { '/repos/octo/repo-9': 404, '/repos?page=0': 400 }[target] ?? 200, target);
      }
      const walked = await timed(walkList(`${server.base}/repos?per_page=1`));
      assert.equal(walked.items.length, 3);
      assert.ok(walked.ms >= 150, `three pages in ${walked.ms} ms`);
      assert.equal((await request(server.url)).status, 200);
    });
    assert.equal(code, 0);
    assert.match(lines[0], /; 3 repos at \/repos \(issues 4, comments 3 on average, latency 50 ms\); redirect target /);

    const server = await startServer(['--count', '1', '--repos', '3', '--latency', '60000']);
    let stopped;
    try {
      // A client that gives up during the wait: the server goes on serving.
      const left = http.get(`${server.base}/repos`);
      const failed = new Promise((resolve) => left.once('error', resolve));
      await new Promise((resolve) => setTimeout(resolve, 100));
      left.destroy();
      await failed;
      assert.equal((await request(server.url)).status, 200);
      // A stop during a wait: the server does not wait out the minute.
      const pending = request(`${server.base}/repos/octo/repo-1/issues`).then(() => 'answered', () => 'dropped');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stopping = await timed(server.stop().then((result) => ({ result })));
      stopped = stopping.result;
      assert.ok(stopping.ms < 1000, `stopped in ${stopping.ms} ms`);
      assert.equal(await pending, 'dropped');
    } finally {
      stopped ??= await server.stop();
    }
    assert.equal(stopped.code, 0);
    assert.equal(stopped.stderr.match(/^GET \/repos\S* - 0B /gm)?.length, 2, stopped.stderr);
  });

  for (const args of [['--count', '5', '--fixed'], ['--count', '5', '--latency', '10'], ['--count', '5', '--repos', '3', '--latency', '60001'],
    ['--count', '5', '--repos', '3', '--latency', 'x'], ['--count', '5', '--issues', '3'], ['--count', '5', '--comments', '3'], ['--count', '5', '--repos', '100001'],
    ['--count', '5', '--repos', '-1'], ['--count', '5', '--repos', 'x'], ['--count', '5', '--repos', '3', '--issues', '1001'],
    ['--count', '5', '--repos', '3', '--comments', '1.5'], ['--repos', '3'], ['--dir', 'x', '--seed', '3']]) {
    test(`exits 64 on ${JSON.stringify(args)}`, async () => {
      const { code, stderr } = await runServer(args);
      assert.equal(code, 64);
      assert.match(stderr, /^Error: .*\(see --help\)\n$/);
    });
  }
});
