// --repos: a GitHub-shaped nested API over notes/nested.mjs's data: GET /repos, a repo's issues (with
// since), an issue's comments, each paged as GitHub pages (page, per_page, a Link header), and the
// test-only POST .../issues/<n>/touch. Errors in GitHub's form, {"message":"Not Found"}. With --latency,
// each response waits until that long after its request arrived.

import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError, parseInteger } from '../shared/errors.mjs';
import { jsonBody } from '../shared/http.mjs';
import { parseRfc3339 } from '../shared/rfc3339.mjs';
import { bearerMatches, unauthorized } from '../faults/auth.mjs';
import { OWNER } from '../notes/nested.mjs';
import { formatLinkHeader } from './link.mjs';

/** The page size when a request names none, and the largest served (a larger per_page is served as this), as GitHub's. */
export const DEFAULT_PER_PAGE = 30;

export const MAX_PER_PAGE = 100;

/** Whether a path is the nested API's: /repos and everything under it. */
export function isNestedPath(pathname) {
  return pathname === '/repos' || pathname.startsWith('/repos/');
}

/**
 * What a path names, or null for none: `{route, r, n}` with route 'repos' (/repos), 'repo'
 * (/repos/octo/repo-<r>), 'issues' (…/issues), 'issue' (…/issues/<n>), 'comments'
 * (…/issues/<n>/comments) or 'touch' (…/issues/<n>/touch). Numbers are plain decimals without leading
 * zeros; whether the repo and issue exist is the caller's to check.
 */
export function parseNestedPath(pathname) {
  if (pathname === '/repos') return { route: 'repos', r: null, n: null };
  const match = new RegExp(`^/repos/${OWNER}/repo-([1-9]\\d{0,15})(?:/issues(?:/([1-9]\\d{0,15})(?:/(comments|touch))?)?)?$`).exec(pathname);
  if (!match) return null;
  const [, repo, issue, action] = match;
  const route = action ?? (issue !== undefined ? 'issue' : pathname.endsWith('/issues') ? 'issues' : 'repo');
  return { route, r: Number(repo), n: issue === undefined ? null : Number(issue) };
}

/** The method each route answers; any other is a 405 with Allow. */
const ROUTE_METHODS = { repos: 'GET', repo: 'GET', issues: 'GET', issue: 'GET', comments: 'GET', touch: 'POST' };

/**
 * A list request's paging (`query`: URLSearchParams): `{page, perPage}`, page 1 and per_page 30 when
 * absent, a per_page over 100 served as 100. Throws UsageError for a value that is no integer or is
 * below 1, or is given twice.
 */
export function parsePaging(query) {
  const one = (name, fallback) => {
    const values = query.getAll(name);
    if (values.length > 1) throw new UsageError(`more than one ${name}`);
    return values.length ? parseInteger(values[0], name, 1, Number.MAX_SAFE_INTEGER) : fallback;
  };
  return { page: one('page', 1), perPage: Math.min(MAX_PER_PAGE, one('per_page', DEFAULT_PER_PAGE)) };
}

/** The `since` of an issues request in ms, or null without one; throws UsageError for no RFC 3339 date-time, or two. */
export function parseNestedSince(query) {
  const values = query.getAll('since');
  if (values.length === 0) return null;
  if (values.length > 1) throw new UsageError('more than one since');
  const ms = parseRfc3339(values[0]);
  if (ms === null) {
    throw new UsageError(`since must be an RFC 3339 date-time such as 2026-01-01T00:00:00Z, not ${JSON.stringify(values[0].slice(0, 100))}`);
  }
  return ms;
}

/**
 * Where page `page` of `total` items, `perPage` a page, starts and ends, and the pages its Link header
 * names, in GitHub's order: prev and first after page 1 (prev the page before, even past the end),
 * next and last while a later page has items. Pages past the last are empty, with prev and first only.
 * Returns `{start, end, links: [{rel, page}]}`.
 */
export function pageOf(total, page, perPage) {
  const last = Math.max(1, Math.ceil(total / perPage));
  const start = Math.min(total, (page - 1) * perPage);
  const links = [];
  if (page > 1) links.push({ rel: 'prev', page: page - 1 });
  if (page < last) links.push({ rel: 'next', page: page + 1 }, { rel: 'last', page: last });
  if (page > 1) links.push({ rel: 'first', page: 1 });
  return { start, end: Math.min(total, start + perPage), links };
}

/** The absolute URL of page `page` of a list: the request's path and its other query parameters, `page` set. */
export function pageUrl(origin, pathname, query, page) {
  const params = new URLSearchParams(query);
  params.set('page', String(page));
  return `${origin}${pathname}?${params}`;
}

/** A 200 of page `paging.page` of a list of `total` items, `make(start, end)` the items at those positions. */
function listPage(total, paging, make, origin, pathname, query) {
  const { start, end, links } = pageOf(total, paging.page, paging.perPage);
  const headers = links.length
    ? { Link: formatLinkHeader(links.map(({ rel, page }) => ({ rel, url: pageUrl(origin, pathname, query, page) }))) }
    : {};
  return jsonBody(200, make(start, end), headers);
}

const gitHubError = (status, message, headers) => jsonBody(status, { message }, headers);

const notFound = () => gitHubError(404, 'Not Found');

/**
 * Answers a request under /repos on the main listener of a --repos server (`state.nested`, a
 * NestedData): the bearer token first when the server has one (401 as the auth fault answers it), then
 * 404 for a path or repo or issue that is not there, 405 for another method, 400 for a bad page,
 * per_page or since, else the list page or record, or the touch.
 */
export function nestedResponse(req, pathname, query, state) {
  req.resume(); // a body, if any, is not read
  if (state.token !== null && !bearerMatches(req.headers.authorization, state.token)) return unauthorized();
  const data = state.nested;
  const path = parseNestedPath(pathname);
  if (!path || (path.r !== null && !data.hasRepo(path.r)) || (path.n !== null && !data.hasIssue(path.r, path.n))) return notFound();
  const method = ROUTE_METHODS[path.route];
  if (req.method !== method) return gitHubError(405, 'Method Not Allowed', { Allow: method });
  const { route, r, n } = path;
  const origin = state.base;
  if (route === 'touch') return jsonBody(200, data.touch(r, n));
  if (route === 'repo') return jsonBody(200, data.repo(r, origin));
  if (route === 'issue') return jsonBody(200, data.issue(r, n, origin));
  let paging, since;
  try {
    paging = parsePaging(query);
    since = route === 'issues' ? parseNestedSince(query) : null;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return gitHubError(400, error.message);
  }
  const page = (total, make) => listPage(total, paging, make, origin, pathname, query);
  if (route === 'repos') return page(data.repos, (start, end) => Array.from({ length: end - start }, (_, k) => data.repo(start + k + 1, origin)));
  if (route === 'issues') {
    const issues = data.issues(r, origin).filter((issue) => since === null || Date.parse(issue.updated_at) >= since);
    return page(issues.length, (start, end) => issues.slice(start, end));
  }
  return page(data.issue(r, n, origin).comments, (start, end) => data.comments(r, n, origin, start, end));
}

/**
 * nestedResponse, given no sooner than `state.nestedLatencyMs` after the request arrived (`arrived`,
 * process.hrtime.bigint() then): the response is worked out at once (a touch acts on arrival), then a
 * timer waits out the rest. `signal` (the client left, or the server stops) ends the wait with an
 * AbortError. Without latency, no timer. `respond` answers in place of nestedResponse (the Stripe-shaped
 * lists of styles/stripe.mjs, which keep the same latency).
 */
export async function lateNestedResponse(req, pathname, query, state, arrived, signal, respond = nestedResponse) {
  const response = respond(req, pathname, query, state);
  const latency = state.nestedLatencyMs ?? 0;
  const elapsed = () => Number(process.hrtime.bigint() - arrived) / 1e6;
  // A timer may fire a little early by this clock: then it waits again for what is left.
  for (let left = latency - elapsed(); left > 0; left = latency - elapsed()) await sleep(Math.ceil(left), undefined, { signal });
  return response;
}
