// --repos: the data of the GitHub-shaped nested API (styles/nested.mjs serves it): repos, their issues
// and each issue's comments, all fixed by the seed (shared/seeded.mjs) and made as they are asked for,
// and the touches that move an issue's updated_at while the server runs.

import { rfc3339 } from '../shared/rfc3339.mjs';
import { mix32 } from '../shared/seeded.mjs';

/** The owner of every repo: `octo/repo-<i>`. */
export const OWNER = 'octo';

/** The earliest updated_at of a repo, issue or comment: 2026-01-01T00:00:00Z. */
export const NESTED_EPOCH_MS = Date.UTC(2026, 0, 1);

/** Every record's first updated_at is a whole second within this many seconds of the epoch (30 days). */
export const NESTED_SPREAD_S = 30 * 24 * 3600;

/** Issue ids are this plus the issue's running number (1, 2, … over all repos, in repo order). */
export const ISSUE_ID_BASE = 1_000_000;

/**
 * Comment ids are this plus the comment's running number (1, 2, … over all issues, in issue order):
 * above the largest issue id (100,000 repos of at most 2,000 issues), so no comment shares an issue's id.
 */
export const COMMENT_ID_BASE = 500_000_000;

// What each choice of the seed is salted with, so that no two draw the same numbers.
const SALT = { issues: 0x155e5, comments: 0xc033e, repoTime: 0x7e90, issueTime: 0x7155, commentTime: 0x7c03, issueText: 0x7e47, commentText: 0xb0d7, amountDue: 0xa40d };

const ISSUE_TITLES = [
  (n) => `Crash when syncing #${n}`,
  (n) => `Café "${n}" shows the wrong date`,
  (n) => `日本語のタイトル ${n} 😀`,
  (n) => `Path C:\\notes\\${n} breaks the\texport`,
];

const COMMENT_BODIES = [
  (k, n) => `Comment ${k} on #${n}: I can reproduce this.`,
  (k, n) => `Still happens on #${n}.\n\nSteps:\n1. open\n2. sync (comment ${k})`,
  (k) => `Grüße — “${k}” 👍`,
  (k) => `+1 (${k})`,
];

/**
 * The repos, issues and comments of `--repos N --issues K --comments C --seed S`: repo i (1..N) has
 * from 0 to 2K issues, numbered 1.. within it, and each issue from 0 to 2C comments, each count drawn
 * uniformly by the seed; with `fixed` (--fixed), every repo has exactly K issues and every issue
 * exactly C comments. Ids are running numbers either way. Only the issue counts are worked out at
 * start-up (one number per repo); the comments before a repo are summed when a repo at or after it is
 * first asked for, so that comment ids run on across repos. With `createdRound` S (--created-round),
 * the Stripe-shaped lists' created values are rounded down to a multiple of S seconds.
 */
export class NestedData {
  constructor(repos, issues, comments, seed, fixed = false, createdRound = 1) {
    this.repos = repos;
    this.maxIssues = 2 * issues;
    this.maxComments = 2 * comments;
    this.seed = seed;
    this.fixed = fixed;
    this.commentsEach = comments; // with fixed: the comments of every issue
    this.createdRound = createdRound; // every customer's and invoice's created is a multiple of this many seconds
    // issueStart[r]: the issues of repos 1..r, so repo r's are running numbers issueStart[r-1]+1 to issueStart[r].
    this.issueStart = new Float64Array(repos + 1);
    for (let r = 1; r <= repos; r++) {
      this.issueStart[r] = this.issueStart[r - 1] + (fixed ? issues : this.draw('issues', r, this.maxIssues));
    }
    // commentStart[r]: the comments of repos 1..r, worked out up to commentsKnown.
    this.commentStart = new Float64Array(repos + 1);
    this.commentsKnown = 0;
    this.touched = new Map(); // issue id -> its updated_at in ms, once touched
    // The last touch's updated_at: it starts a second before the first touch, which is later than every first updated_at.
    this.clock = NESTED_EPOCH_MS + (NESTED_SPREAD_S - 1) * 1000;
  }

  /** A number from 0 to `max` drawn by the seed for choice `what` of thing `i`. */
  draw(what, i, max) {
    return mix32(this.seed ^ SALT[what], i) % (max + 1);
  }

  /** A first updated_at, in ms: the epoch plus whole seconds drawn for choice `what` of thing `i`. */
  firstUpdate(what, i) {
    return NESTED_EPOCH_MS + this.draw(what, i, NESTED_SPREAD_S - 1) * 1000;
  }

  /** Whether repo `r` exists (1..N). */
  hasRepo(r) {
    return Number.isSafeInteger(r) && r >= 1 && r <= this.repos;
  }

  /** The number of issues of repo `r`. */
  issueCount(r) {
    return this.issueStart[r] - this.issueStart[r - 1];
  }

  /** Whether repo `r` has an issue numbered `n`. */
  hasIssue(r, n) {
    return this.hasRepo(r) && Number.isSafeInteger(n) && n >= 1 && n <= this.issueCount(r);
  }

  /** The running number (1-based, over all repos) of issue `n` of repo `r`. */
  issueNumber(r, n) {
    return this.issueStart[r - 1] + n;
  }

  /** The number of comments of the issue with running number `g`. */
  commentCountOf(g) {
    return this.fixed ? this.commentsEach : this.draw('comments', g, this.maxComments);
  }

  /** The comments of repos before repo `r`, summed (and kept) up to it on first need (with fixed: C for each issue before it). */
  commentsBefore(r) {
    if (this.fixed) return this.issueStart[r - 1] * this.commentsEach;
    for (; this.commentsKnown < r - 1; this.commentsKnown++) {
      const next = this.commentsKnown + 1;
      let sum = 0;
      for (let g = this.issueStart[next - 1] + 1; g <= this.issueStart[next]; g++) sum += this.commentCountOf(g);
      this.commentStart[next] = this.commentStart[next - 1] + sum;
    }
    return this.commentStart[r - 1];
  }

  /** Repo `r` as GitHub writes one (the members this API has), its URLs under `origin` (scheme://host:port). */
  repo(r, origin) {
    return {
      id: r,
      name: `repo-${r}`,
      full_name: `${OWNER}/repo-${r}`,
      owner: { login: OWNER },
      updated_at: rfc3339(this.firstUpdate('repoTime', r)),
      issues_url: `${origin}/repos/${OWNER}/repo-${r}/issues`,
    };
  }

  /** Issue `n` of repo `r` (see hasIssue), with its comment count and its updated_at as touched. */
  issue(r, n, origin) {
    const g = this.issueNumber(r, n);
    const id = ISSUE_ID_BASE + g;
    const repoUrl = `${origin}/repos/${OWNER}/repo-${r}`;
    return {
      id,
      number: n,
      title: ISSUE_TITLES[this.draw('issueText', g, ISSUE_TITLES.length - 1)](n),
      state: 'open',
      updated_at: rfc3339(this.touched.get(id) ?? this.firstUpdate('issueTime', g)),
      repository_url: repoUrl,
      comments_url: `${repoUrl}/issues/${n}/comments`,
      comments: this.commentCountOf(g),
    };
  }

  /** Every issue of repo `r`, by number. */
  issues(r, origin) {
    return Array.from({ length: this.issueCount(r) }, (_, k) => this.issue(r, k + 1, origin));
  }

  /** The comments of issue `n` of repo `r` at positions [start, end) of its comments, by id. */
  comments(r, n, origin, start = 0, end = Infinity) {
    const g = this.issueNumber(r, n);
    let before = this.commentsBefore(r); // the comments before this issue's first
    for (let h = this.issueStart[r - 1] + 1; h < g; h++) before += this.commentCountOf(h);
    const issueUrl = `${origin}/repos/${OWNER}/repo-${r}/issues/${n}`;
    const comments = [];
    for (let k = start; k < Math.min(end, this.commentCountOf(g)); k++) {
      const c = before + k + 1;
      comments.push({
        id: COMMENT_ID_BASE + c,
        body: COMMENT_BODIES[this.draw('commentText', c, COMMENT_BODIES.length - 1)](c, n),
        updated_at: rfc3339(this.firstUpdate('commentTime', c)),
        issue_url: issueUrl,
      });
    }
    return comments;
  }

  /** The number of issues over all repos: issue running numbers run from 1 to this. */
  issueTotal() {
    return this.issueStart[this.repos];
  }

  /** The repo of the issue with running number `g` (1..issueTotal()): the first r with issueStart[r] >= g. */
  repoOfIssue(g) {
    let lo = 1;
    let hi = this.repos;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.issueStart[mid] >= g) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /**
   * A Stripe created: the first updated_at of choice `what` of thing `i` in Unix seconds, rounded down
   * to a multiple of createdRound (so that with a day, many share the timestamp at a day's edge).
   */
  created(what, i) {
    const s = this.firstUpdate(what, i) / 1000;
    return s - (s % this.createdRound);
  }

  /** The created of repo `r`'s customer (see customer), without the rest of it. */
  customerCreated(r) {
    return this.created('repoTime', r);
  }

  /** The created of the invoice of the issue with running number `g` (see invoice), without the rest of it. */
  invoiceCreated(g) {
    return this.created('issueTime', g);
  }

  /** Repo `r` as a Stripe customer (styles/stripe.mjs): created the repo's first updated_at in Unix seconds, rounded (see created). */
  customer(r) {
    return {
      id: `cus_${r}`,
      object: 'customer',
      name: `Customer ${r}`,
      email: `c${r}@example.com`,
      created: this.customerCreated(r),
    };
  }

  /**
   * The issue with running number `g` as a Stripe invoice of its repo's customer: id in_<issue id>,
   * amount_due 100 to 100,000 (cents) drawn by the seed, created the issue's first updated_at in Unix
   * seconds, rounded (see created; a touch does not move it).
   */
  invoice(g) {
    return {
      id: `in_${ISSUE_ID_BASE + g}`,
      object: 'invoice',
      customer: `cus_${this.repoOfIssue(g)}`,
      amount_due: 100 + this.draw('amountDue', g, 99_900),
      status: 'open',
      created: this.invoiceCreated(g),
    };
  }

  /**
   * Touches issue `n` of repo `r`: its updated_at becomes a second after the last touch's, which is
   * later than every updated_at there has been. Nothing else changes. Returns `{id, updated_at}`.
   */
  touch(r, n) {
    const id = ISSUE_ID_BASE + this.issueNumber(r, n);
    this.clock += 1000;
    this.touched.set(id, this.clock);
    return { id, updated_at: rfc3339(this.clock) };
  }
}
