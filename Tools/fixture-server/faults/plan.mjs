// Which faults act on a request, in which order (planFaults), and carrying out the plan, the same for
// every endpoint: delays, a reset, a 401, a response that replaces the page (a status, a fixture, a
// redirect, a bomb, a rate limit), relabelling and the delivery faults that delivery.mjs carries out.

import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../shared/errors.mjs';
import { COMMON_HEADERS, HTML_TYPE, JSON_TYPE, jsonBody } from '../shared/http.mjs';
import { requestedEncodings } from '../server/compression.mjs';
import { bearerMatches, unauthorized } from './auth.mjs';
import { faultActsOn, faultProblem, parseFaultList } from './grammar.mjs';
import { bomb } from './hostile-bodies.mjs';
import { githubRateHeaders, rateLimitResponse } from './rate-limits.mjs';

const REPLACING_KINDS = new Set(['status', 'fixture', 'redirect', 'bomb', 'ratelimit-github', 'ratelimit-ietf', 'ratelimit-retry-after',
  'graphql-ratelimit']);

const CONTENT_KINDS = new Set(['duplicate-id', 'cycle', 'huge-title', 'deep', 'next-ref', 'graphql-error', 'graphql-cycle', 'graphql-endless']);

/**
 * Decides what the faults do to one request for page `page` (1-based). A fault is live when it names
 * this page (or none; `graphql-endless@N` names every page from N on) and has not used up its `xN`;
 * `used` maps fault keys to how often each fired.
 * Live faults act in this order, and only the ones that act are listed in `fired` (so counted):
 *   0. every `shift` (`shift`; it inserts its notes for good, so it is live until it has acted once);
 *   1. every `delay` (they add up);
 *   2. the first `reset`, which ends the request;
 *   3. the first `auth`, which ends it with 401 unless `authorized`;
 *   4. the first status, fixture, redirect, bomb or rate-limit fault (ratelimit-github, -ietf,
 *      -retry-after, graphql-ratelimit) replaces the page (`replace`); otherwise every content fault
 *      (duplicate-id, cycle, huge-title, deep, next-ref, graphql-error, -cycle, -endless) alters it
 *      (`content`);
 *   5. the first `content-type` relabels the response and the first `remaining-zero` adds its rate
 *      limit headers; the first of `truncate` and `stall` and the first `drip` shape its delivery (a
 *      dripped body can also be truncated or stalled). A `bomb` is streamed as it is made: no
 *      delivery fault acts on it.
 */
export function planFaults(faults, page, authorized, used) {
  const onPage = (f) => f.page === null || f.page === page || (f.kind === 'graphql-endless' && page > f.page);
  const live = faults.filter((f) => onPage(f) && (f.times === null || (used.get(f.key) ?? 0) < f.times));
  const plan = {
    fired: [], shift: [], delayMs: 0, reset: false, unauthorized: false, replace: null, content: [],
    contentType: null, remainingZero: null, truncate: null, stall: null, drip: null,
  };
  const first = (test) => {
    const fault = live.find(test);
    if (fault) plan.fired.push(fault);
    return fault ?? null;
  };
  plan.shift = live.filter((f) => f.kind === 'shift');
  plan.fired.push(...plan.shift);
  for (const fault of live.filter((f) => f.kind === 'delay')) {
    plan.fired.push(fault);
    plan.delayMs += fault.ms;
  }
  if (first((f) => f.kind === 'reset')) {
    plan.reset = true;
    return plan;
  }
  if (first((f) => f.kind === 'auth') && !authorized) {
    plan.unauthorized = true;
    return plan;
  }
  plan.replace = first((f) => REPLACING_KINDS.has(f.kind));
  if (!plan.replace) {
    plan.content = live.filter((f) => CONTENT_KINDS.has(f.kind));
    plan.fired.push(...plan.content);
  }
  plan.contentType = first((f) => f.kind === 'content-type');
  plan.remainingZero = first((f) => f.kind === 'remaining-zero');
  if (plan.replace?.kind === 'bomb') return plan;
  const end = first((f) => f.kind === 'truncate' || f.kind === 'stall');
  plan.truncate = end?.kind === 'truncate' ? end : null;
  plan.stall = end?.kind === 'stall' ? end : null;
  plan.drip = first((f) => f.kind === 'drip');
  return plan;
}

/** Plans the faults of a request for page `page` (planFaults), counts those that fire and names them in the log. */
export function planRequest(active, page, req, state, record) {
  const plan = planFaults(active, page, bearerMatches(req.headers.authorization, state.token), state.used);
  for (const fault of plan.fired) state.used.set(fault.key, (state.used.get(fault.key) ?? 0) + 1);
  record.faults = plan.fired.map((fault) => fault.spec);
  return plan;
}

/**
 * Carries out a plan of faults, the same for every endpoint: its delays, then a reset (null: no
 * response), a 401, or the replacing fault's response or else the one `build` makes, relabelled,
 * with rate limit headers and delivery faults as planned.
 */
export async function applyPlan(plan, req, state, signal, record, build) {
  if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal });
  if (plan.reset) {
    // The TCP socket itself: a TLS socket cannot send a reset. The log line is written when the
    // response closes with its socket, status '-'.
    (record.connection?.socket ?? req.socket).resetAndDestroy();
    return null;
  }
  if (plan.unauthorized) return unauthorized();
  const response = plan.replace ? replacement(plan.replace, req, state) : await build();
  if (plan.contentType) response.headers['Content-Type'] = plan.contentType.contentType;
  if (plan.remainingZero) Object.assign(response.headers, githubRateHeaders(plan.remainingZero.seconds, Date.now()));
  response.truncate = plan.truncate;
  response.stall = plan.stall;
  response.drip = plan.drip;
  return response;
}

/** The response of a status, fixture, redirect, bomb or rate-limit fault (graphql-ratelimit too). */
function replacement(fault, req, state) {
  switch (fault.kind) {
    case 'bomb':
      return {
        status: 200,
        headers: { ...COMMON_HEADERS, 'Content-Type': JSON_TYPE, 'Content-Encoding': 'gzip' },
        parts: [],
        stream: () => bomb(fault.bytes),
      };
    case 'ratelimit-github': case 'ratelimit-ietf': case 'ratelimit-retry-after': case 'graphql-ratelimit': {
      const { status, headers, body } = rateLimitResponse(fault, Date.now());
      return jsonBody(status, body, headers);
    }
    case 'status': {
      const headers = {};
      if (fault.retryAfter !== null) headers['Retry-After'] = String(fault.retryAfter);
      if (fault.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="notes"';
      return jsonBody(fault.status, { error: 'injected', status: fault.status }, headers);
    }
    case 'fixture': {
      const type = fault.file.endsWith('.html') ? HTML_TYPE : JSON_TYPE;
      return { status: 200, headers: { ...COMMON_HEADERS, 'Content-Type': type }, parts: [state.fixtures.get(fault.file)] };
    }
    case 'redirect':
      return { status: fault.status, headers: { ...COMMON_HEADERS, Location: `${state.targetBase}${req.url}` }, parts: [] };
  }
}

export function requestFaults(query, req) {
  return parseFaultList([...query.getAll('fault'), req.headers['x-notes-fault'] ?? ''], 'request');
}

/**
 * The shift faults behind a request to the redirect target. The target ignores faults, so none acts
 * there, but it serves the same list: with the notes that the flag faults, and the request faults it
 * carries, have inserted on the main listener. Faults that do not parse are ignored, as all are there.
 */
export function targetShifts(query, req, state) {
  let faults = [];
  try {
    faults = requestFaults(query, req);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
  }
  return [...faults, ...state.faults];
}

/**
 * The faults of a request to /graphql or the Notion-style query (`endpoint` 'graphql', 'notion'): its
 * own (?fault=, X-Notes-Fault) and --fault's, less those that do not act there (faultActsOn); none
 * on the redirect target. Checks the request's compress= as well; throws UsageError.
 */
export function endpointFaults(endpoint, query, req, state, isTarget) {
  requestedEncodings(query, state);
  if (isTarget) return [];
  const faults = requestFaults(query, req);
  for (const fault of faults) {
    const problem = faultProblem(fault, { fixtures: state.fixtures, hasToken: state.token !== null });
    if (problem) throw new UsageError(problem);
  }
  return [...faults, ...state.faults].filter((fault) => faultActsOn(fault, endpoint));
}
