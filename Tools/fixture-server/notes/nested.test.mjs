// Unit tests of the nested API's data (nested.mjs): counts and ids fixed by the seed, the records'
// members and URLs, comment ids running on across repos, touches. Run with `node --test Tools/`.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMENT_ID_BASE, ISSUE_ID_BASE, NESTED_EPOCH_MS, NESTED_SPREAD_S, NestedData } from './nested.mjs';

const ORIGIN = 'http://h:1';

/** Every issue and comment of `data`, repo by repo, made by the public methods only. */
function everything(data) {
  const issues = [];
  const comments = [];
  for (let r = 1; r <= data.repos; r++) {
    for (const issue of data.issues(r, ORIGIN)) {
      issues.push(issue);
      comments.push(...data.comments(r, issue.number, ORIGIN));
    }
  }
  return { issues, comments };
}

const RFC3339_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('NestedData', () => {
  test('issue counts from 0 to 2K and comment counts from 0 to 2C, some of each none, fixed by the seed', () => {
    const data = new NestedData(300, 4, 3, 42);
    const counts = Array.from({ length: 300 }, (_, k) => data.issueCount(k + 1));
    assert.ok(counts.every((c) => Number.isInteger(c) && c >= 0 && c <= 8));
    assert.ok(counts.includes(0) && counts.includes(8));
    const mean = counts.reduce((a, b) => a + b, 0) / counts.length;
    assert.ok(mean > 3.3 && mean < 4.7, `mean ${mean}`);
    const { issues } = everything(data);
    const comments = issues.map((issue) => issue.comments);
    assert.ok(comments.every((c) => c >= 0 && c <= 6) && comments.includes(0) && comments.includes(6));
    assert.deepEqual(everything(new NestedData(300, 4, 3, 42)), everything(data));
    assert.notDeepEqual(Array.from({ length: 300 }, (_, k) => new NestedData(300, 4, 3, 7).issueCount(k + 1)), counts);
  });

  test('--issues 0 and --comments 0: no issues, or issues without comments', () => {
    assert.equal(everything(new NestedData(20, 0, 3, 1)).issues.length, 0);
    const { issues, comments } = everything(new NestedData(20, 3, 0, 1));
    assert.ok(issues.length > 0);
    assert.ok(issues.every((issue) => issue.comments === 0));
    assert.equal(comments.length, 0);
  });

  test('fixed: every repo exactly K issues, every issue exactly C comments; ids run on as ever', () => {
    const data = new NestedData(7, 5, 2, 42, true);
    assert.deepEqual(Array.from({ length: 7 }, (_, k) => data.issueCount(k + 1)), Array(7).fill(5));
    const { issues, comments } = everything(data);
    assert.equal(issues.length, 35);
    assert.ok(issues.every((issue) => issue.comments === 2));
    assert.equal(comments.length, 70);
    assert.deepEqual(issues.map((issue) => issue.id), issues.map((_, k) => ISSUE_ID_BASE + k + 1));
    assert.deepEqual(comments.map((comment) => comment.id), comments.map((_, k) => COMMENT_ID_BASE + k + 1));
    // Asked for out of order, the comment ids are the same.
    const backwards = new NestedData(7, 5, 2, 42, true);
    assert.deepEqual(backwards.comments(7, 5, ORIGIN), comments.slice(-2));
    assert.deepEqual(backwards.comments(3, 1, ORIGIN).map((comment) => comment.id), [COMMENT_ID_BASE + 21, COMMENT_ID_BASE + 22]);
    // The records are those of the seed, but for the counts.
    const drawn = new NestedData(7, 5, 2, 42);
    assert.deepEqual(data.repo(3, ORIGIN), drawn.repo(3, ORIGIN));
    assert.deepEqual([new NestedData(3, 0, 4, 1, true), new NestedData(3, 4, 0, 1, true)].map((d) => everything(d).comments.length), [0, 0]);
    assert.equal(everything(new NestedData(3, 4, 0, 1, true)).issues.length, 12);
    // The largest: 100,000 repos of 1,000 issues each, ids below the first comment id.
    const largest = new NestedData(100_000, 1000, 1000, 42, true);
    assert.equal(largest.issue(100_000, 1000, ORIGIN).id, ISSUE_ID_BASE + 100_000 * 1000);
    assert.equal(largest.comments(100_000, 1000, ORIGIN, 999).at(-1).id, COMMENT_ID_BASE + 100_000 * 1000 * 1000);
  });

  test('ids: repos 1..N, issues and comments running on from their bases over all repos, each once, never shared', () => {
    const data = new NestedData(50, 3, 2, 9);
    const { issues, comments } = everything(data);
    assert.deepEqual(issues.map((issue) => issue.id), issues.map((_, k) => ISSUE_ID_BASE + k + 1));
    assert.deepEqual(comments.map((comment) => comment.id), comments.map((_, k) => COMMENT_ID_BASE + k + 1));
    assert.equal(comments.length, issues.reduce((sum, issue) => sum + issue.comments, 0));
    for (let r = 1; r <= 50; r++) {
      assert.deepEqual(data.issues(r, ORIGIN).map((issue) => issue.number), Array.from({ length: data.issueCount(r) }, (_, k) => k + 1));
    }
    // The largest issue id there can be (100,000 repos of 2,000 issues) is below the first comment id.
    assert.ok(ISSUE_ID_BASE + 100_000 * 2000 < COMMENT_ID_BASE);
  });

  test('comment ids do not depend on the order repos are first asked for', () => {
    const inOrder = new NestedData(40, 3, 3, 5);
    const expected = everything(inOrder).comments;
    const backwards = new NestedData(40, 3, 3, 5);
    const comments = [];
    for (let r = 40; r >= 1; r--) {
      const repo = [];
      for (const issue of backwards.issues(r, ORIGIN)) repo.push(...backwards.comments(r, issue.number, ORIGIN));
      comments.unshift(...repo);
    }
    assert.deepEqual(comments, expected);
  });

  test('records: the members and URLs of GitHub, updated_at in whole seconds within 30 days of 2026-01-01', () => {
    const data = new NestedData(30, 4, 3, 42);
    const repo = data.repo(7, ORIGIN);
    assert.deepEqual(Object.keys(repo), ['id', 'name', 'full_name', 'owner', 'updated_at', 'issues_url']);
    assert.deepEqual({ ...repo, updated_at: null }, {
      id: 7, name: 'repo-7', full_name: 'octo/repo-7', owner: { login: 'octo' }, updated_at: null, issues_url: 'http://h:1/repos/octo/repo-7/issues',
    });
    const r = [...Array(30).keys()].map((k) => k + 1).find((k) => data.issueCount(k) >= 2 && data.issue(k, 2, ORIGIN).comments > 0);
    const issue = data.issue(r, 2, ORIGIN);
    assert.deepEqual(Object.keys(issue), ['id', 'number', 'title', 'state', 'updated_at', 'repository_url', 'comments_url', 'comments']);
    assert.equal(issue.number, 2);
    assert.equal(issue.state, 'open');
    assert.equal(typeof issue.title, 'string');
    assert.equal(issue.repository_url, `http://h:1/repos/octo/repo-${r}`);
    assert.equal(issue.comments_url, `http://h:1/repos/octo/repo-${r}/issues/2/comments`);
    const comment = data.comments(r, 2, ORIGIN)[0];
    assert.deepEqual(Object.keys(comment), ['id', 'body', 'updated_at', 'issue_url']);
    assert.equal(comment.issue_url, `http://h:1/repos/octo/repo-${r}/issues/2`);
    const { issues, comments } = everything(data);
    for (const record of [...issues, ...comments, ...Array.from({ length: 30 }, (_, k) => data.repo(k + 1, ORIGIN))]) {
      assert.match(record.updated_at, RFC3339_Z);
      const ms = Date.parse(record.updated_at);
      assert.ok(ms >= NESTED_EPOCH_MS && ms < NESTED_EPOCH_MS + NESTED_SPREAD_S * 1000, record.updated_at);
    }
  });

  test('comments by position: a range is the same as that slice of all of them', () => {
    const data = new NestedData(10, 3, 20, 3);
    const r = [...Array(10).keys()].map((k) => k + 1).find((k) => data.issueCount(k) > 0 && data.issue(k, 1, ORIGIN).comments >= 5);
    const all = data.comments(r, 1, ORIGIN);
    assert.equal(all.length, data.issue(r, 1, ORIGIN).comments);
    assert.deepEqual(data.comments(r, 1, ORIGIN, 2, 4), all.slice(2, 4));
    assert.deepEqual(data.comments(r, 1, ORIGIN, all.length, all.length + 10), []);
  });

  test('hasRepo and hasIssue', () => {
    const data = new NestedData(5, 4, 3, 42);
    assert.deepEqual([0, 1, 5, 6, 1.5, NaN].map((r) => data.hasRepo(r)), [false, true, true, false, false, false]);
    const r = [1, 2, 3, 4, 5].find((k) => data.issueCount(k) > 0);
    assert.equal(data.hasIssue(r, 1), true);
    assert.equal(data.hasIssue(r, data.issueCount(r)), true);
    assert.equal(data.hasIssue(r, data.issueCount(r) + 1), false);
    assert.equal(data.hasIssue(r, 0), false);
    assert.equal(data.hasIssue(6, 1), false);
  });

  test('touch: a second after the last touch, later than every first updated_at; nothing else changes', () => {
    const data = new NestedData(20, 4, 3, 42);
    const before = everything(data);
    const newest = Math.max(...before.issues.map((issue) => Date.parse(issue.updated_at)));
    const [r1, r2] = [...Array(20).keys()].map((k) => k + 1).filter((k) => data.issueCount(k) >= 2);
    const first = data.touch(r1, 2);
    assert.deepEqual(Object.keys(first), ['id', 'updated_at']);
    assert.equal(first.id, data.issue(r1, 2, ORIGIN).id);
    assert.equal(first.updated_at, '2026-01-31T00:00:00Z');
    assert.ok(Date.parse(first.updated_at) > newest);
    const second = data.touch(r2, 1);
    const third = data.touch(r1, 2);
    assert.deepEqual([second.updated_at, third.updated_at], ['2026-01-31T00:00:01Z', '2026-01-31T00:00:02Z']);
    assert.equal(data.issue(r1, 2, ORIGIN).updated_at, third.updated_at);
    assert.equal(data.issue(r2, 1, ORIGIN).updated_at, second.updated_at);
    const after = everything(data);
    const changed = new Set([first.id, second.id]);
    const strip = (issues) => issues.map(({ updated_at: time, ...rest }) => (changed.has(rest.id) ? rest : { ...rest, time }));
    assert.deepEqual(strip(after.issues), strip(before.issues));
    assert.deepEqual(after.comments, before.comments);
  });

  test('start-up draws one number per repo: the comments before a repo are summed when it is first asked for', () => {
    // The largest run there can be: 100,000 repos of 1,000 issues of 1,000 comments on average.
    const largest = new NestedData(100_000, 1000, 1000, 42);
    assert.equal(largest.commentsKnown, 0);
    const data = new NestedData(2000, 10, 5, 42);
    assert.equal(data.commentsKnown, 0);
    const before = data.commentsBefore(2000);
    assert.equal(data.commentsKnown, 1999);
    assert.equal(before, everything(data).comments.length - data.issues(2000, ORIGIN).reduce((sum, issue) => sum + issue.comments, 0));
  });
  test('repoOfIssue finds the repo of each issue running number, repos without issues skipped; customer and invoice records', () => {
    const data = new NestedData(200, 2, 0, 5);
    const { issues } = everything(data);
    assert.equal(data.issueTotal(), issues.length);
    for (const issue of issues) {
      const r = Number(/repo-(\d+)$/.exec(issue.repository_url)[1]);
      assert.equal(data.repoOfIssue(issue.id - ISSUE_ID_BASE), r);
      assert.equal(data.invoice(issue.id - ISSUE_ID_BASE).customer, `cus_${r}`);
      assert.equal(data.invoice(issue.id - ISSUE_ID_BASE).created * 1000, Date.parse(issue.updated_at));
    }
    assert.equal(data.customer(7).created * 1000, Date.parse(data.repo(7, ORIGIN).updated_at));
    assert.equal(data.customer(7).email, 'c7@example.com');
  });
});
