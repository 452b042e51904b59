// The requests: each one routed to its endpoint (GET /notes in its style, /graphql, the Notion-style
// query, /admin/ with --updates, /repos, /v1/customers and /v1/invoices with --repos), its faults
// planned and applied, its response compressed, sent and logged.

import { UsageError, StyleError } from '../shared/errors.mjs';
import { jsonBody, jsonError, styleError } from '../shared/http.mjs';
import { credentialsForwarded } from '../faults/auth.mjs';
import { send } from '../faults/delivery.mjs';
import { faultActsOn, faultProblem, styleProblem } from '../faults/grammar.mjs';
import { isNextRefPath, nextRefBaseCursors } from '../faults/next-ref.mjs';
import { applyPlan, planRequest, requestFaults, targetShifts } from '../faults/plan.mjs';
import { ADMIN_PREFIX, adminResponse, parseSince, updatesStyleProblem, updatesView } from '../notes/updates.mjs';
import { isListStyle, listStyleNeedsCount, parseStyle } from '../styles/catalog.mjs';
import { pageResponse, staticView } from '../styles/cursor.mjs';
import { GRAPHQL_PATH, graphqlResponse } from '../styles/graphql.mjs';
import { acceptsJsonApi, jsonApiError, jsonApiQueryProblem } from '../styles/jsonapi.mjs';
import { listResponse, listStart, listView, parseListQuery, resolvePageNumber, unknownStart } from '../styles/list.mjs';
import { isNestedPath, lateNestedResponse } from '../styles/nested.mjs';
import { NOTION_PATH, notionResponse } from '../styles/notion.mjs';
import { isStripePath, stripeResponse } from '../styles/stripe.mjs';
import { DYNAMODB_SERIALIZATION, DYNAMODB_TYPE, dynamoError, dynamoScan } from '../styles/real-servers/dynamodb.mjs';
import { encode, offeredEncodings, requestedEncodings } from './compression.mjs';
import { log, redactTarget, secretsOf } from './log.mjs';

/** The requests not logged yet, and what to do once there are none (at shutdown: exit). */
export const requests = { open: 0, drained: null };

/**
 * What tells a TCP connection apart while it is open: its local and remote ends. A TLS socket has the
 * same ends as the TCP socket under it, so a request's socket finds the connection it came on.
 */
export function connectionKey(socket) {
  return `${socket.localAddress} ${socket.localPort} ${socket.remoteAddress} ${socket.remotePort}`;
}

/**
 * Answers one request, on the main listener or (`isTarget`) on the redirect target. The target serves
 * the same pages without faults or auth, and refuses any request that carries an Authorization header:
 * that is a client forwarding its credentials to another origin.
 */
export async function handle(req, res, state, isTarget) {
  const started = process.hrtime.bigint();
  const arrived = Number((started - state.origin) / 1_000_000n);
  const connection = state.connections.get(connectionKey(req.socket)) ?? null;
  const record = { bytes: 0, faults: [], connection, detail: '' }; // detail: what /graphql and the Notion query log
  const gone = new AbortController(); // the client left before the response was complete
  requests.open++;
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const faults = record.faults.length ? ` fault=${record.faults.join(',')}` : '';
    log(state, `${isTarget ? '[redirect target] ' : ''}${req.method} ${redactTarget(req.url, secretsOf(state))} `
      + `${res.headersSent ? res.statusCode : '-'} ${record.bytes}B ${ms.toFixed(1)}ms${record.detail && ` ${record.detail}`}${faults} `
      + `c=${connection?.number ?? '?'} t=${arrived}${req.httpVersion === '2.0' ? ' h2' : ''}`);
    if (--requests.open === 0) requests.drained?.();
  });
  const signal = AbortSignal.any([state.shutdown.signal, gone.signal]);
  try {
    const response = await respond(req, state, isTarget, record, signal, started);
    if (response) {
      await encode(response, req.headers['accept-encoding'], offeredEncodings(req.url, state));
      await send(res, response, record, signal);
    }
  } catch (error) {
    if (error.name !== 'AbortError') process.stderr.write(`notes-server: ${req.method} ${req.url}: ${error.stack}\n`);
    if (res.headersSent || error.name === 'AbortError') res.destroy();
    else await send(res, jsonError(500, 'internal', 'the server failed; see its log'), record, signal);
  }
}

/**
 * Works out the response to a request: `{status, headers, parts}` plus the delivery faults, or null
 * when a fault already dealt with the connection.
 */
async function respond(req, state, isTarget, record, signal, started) {
  const q = req.url.indexOf('?');
  const pathname = q === -1 ? req.url : req.url.slice(0, q);
  // Query values are form-decoded, as most web frameworks do: an unencoded `+` in a cursor is a space.
  const query = new URLSearchParams(q === -1 ? '' : req.url.slice(q + 1));
  if (pathname === GRAPHQL_PATH) return graphqlResponse(req, query, state, isTarget, record, signal);
  if (pathname === NOTION_PATH) return notionResponse(req, query, state, isTarget, record, signal);
  if (state.updates && !isTarget && pathname.startsWith(ADMIN_PREFIX)) return adminResponse(req, pathname, query, state);
  if (state.nested && !isTarget && isNestedPath(pathname)) return lateNestedResponse(req, pathname, query, state, started, signal);
  if (state.nested && !isTarget && isStripePath(pathname)) return lateNestedResponse(req, pathname, query, state, started, signal, stripeResponse);
  // next-ref:unicode's path leads to the same pages.
  if (pathname !== '/notes' && !isNextRefPath(pathname)) {
    return jsonError(404, 'not-found', `no such path; pages are at /notes, GraphQL at ${GRAPHQL_PATH}, the Notion-style query at ${NOTION_PATH}`);
  }
  let style;
  try {
    style = parseStyle(query.get('style') ?? req.headers['x-notes-style'] ?? state.style);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  const methods = STYLE_METHODS[style] ?? ['GET'];
  if (!methods.includes(req.method)) {
    // DynamoDB answers a request without a JSON body to deserialize as it answers a bad one.
    if (style === 'dynamodb' && req.method === 'GET') {
      return styleError(dynamoError(DYNAMODB_SERIALIZATION, `a Scan is a POST of a JSON body with Content-Type: ${DYNAMODB_TYPE}`));
    }
    return jsonError(405, 'method-not-allowed', `only ${methods.join(' and ')}`, { Allow: methods.join(', ') });
  }

  let faults, listQuery;
  const idKind = state.generated?.idKind ?? 'string';
  try {
    requestedEncodings(query, state);
    faults = isTarget ? [] : requestFaults(query, req);
    const updatesProblem = state.updates && updatesStyleProblem(style, idKind);
    if (updatesProblem) throw new UsageError(updatesProblem);
    if (isListStyle(style, idKind)) {
      if (!state.generated) throw new UsageError(listStyleNeedsCount(style));
      if (style !== 'jsonapi' && style !== 'dynamodb') listQuery = parseListQuery(style, query, state.generated, { method: req.method, target: req.url });
      if (style === 'next-page') listQuery.head = req.method === 'HEAD';
    }
  } catch (error) {
    if (error instanceof StyleError) return styleError(error);
    if (!(error instanceof UsageError)) throw error;
    return jsonError(400, 'bad-request', error.message);
  }
  if (style === 'jsonapi') {
    // As Django REST framework: content negotiation first, then the query parameter filter, then paging.
    if (!acceptsJsonApi(req.headers.accept)) {
      return jsonApiError(406, 'not_acceptable', 'Could not satisfy the request Accept header.');
    }
    const problem = jsonApiQueryProblem(query);
    if (problem) return jsonApiError(400, 'invalid', problem);
    try {
      listQuery = parseListQuery(style, query, state.generated);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      return jsonApiError(400, 'invalid', error.message);
    }
  }
  if (style === 'dynamodb') {
    try {
      listQuery = await dynamoScan(req, state, record);
    } catch (error) {
      if (!(error instanceof StyleError)) throw error;
      return styleError(error);
    }
  }
  for (const fault of faults) {
    const problem = faultProblem(fault, { fixtures: state.fixtures, hasToken: state.token !== null });
    if (problem) return jsonError(400, 'bad-request', problem);
  }
  const active = isTarget ? [] : [...faults, ...state.faults].filter((fault) => faultActsOn(fault, 'notes'));
  for (const fault of active) {
    const problem = styleProblem(fault, style, idKind);
    if (problem) return jsonError(400, 'bad-request', problem);
  }

  // Where the request is: a cursor page (`index`, 0-based) or a place in the list (`list`), and the
  // 1-based page number that faults' @PAGE name.
  let index = null;
  let list = null;
  let view = staticView(state);
  let page;
  if (listQuery) {
    list = listView(state, isTarget ? targetShifts(query, req, state) : active);
    if (style === 'drf' || style === 'jsonapi') {
      const number = resolvePageNumber(listQuery.page, list.length, listQuery.limit);
      if (number === null) {
        return style === 'drf' ? jsonBody(404, { detail: 'Invalid page.' }) : jsonApiError(404, 'not_found', 'Invalid page.');
      }
      listQuery = { ...listQuery, page: number };
    }
    const start = listStart(style, listQuery, list);
    if (start === null) return unknownStart(style);
    page = listQuery.page ?? Math.floor(start / listQuery.limit) + 1;
  } else {
    const cursors = query.getAll('cursor');
    if (cursors.length > 1) return jsonError(400, 'bad-request', 'more than one cursor');
    if (state.updates) {
      const since = parseSince(query);
      if (since?.problem) return jsonError(since.problem.status, since.problem.error, since.problem.message);
      view = updatesView(state, since?.ms ?? null);
    }
    index = cursors.length === 0 ? 0 : view.byCursor.get(cursors[0]);
    // A hostile cursor of next-ref names the page of the cursor it was made from.
    if (index === undefined) index = nextRefBaseCursors(cursors[0]).map((cursor) => view.byCursor.get(cursor)).find((i) => i !== undefined);
    if (index === undefined) return jsonError(400, 'unknown-cursor', 'no page has this cursor');
    page = index + 1;
  }
  if (isTarget && req.headers.authorization !== undefined) return credentialsForwarded();

  const plan = planRequest(active, page, req, state, record);
  if (plan.shift.length) {
    // The new notes are there from this request on; the list this request sees has them.
    state.shifted.push(...plan.shift.map((fault) => ({ key: fault.key, notes: fault.notes })));
    list = listView(state, active);
  }
  return applyPlan(plan, req, state, signal, record, () => (list
    ? listResponse(style, list, listQuery, plan.content, query, state)
    : pageResponse(index, style, plan.content, query, state, view)));
}

/** The methods of GET /notes in each style, where they are not GET alone: Kinto counts with HEAD; DynamoDB takes POSTs. */
const STYLE_METHODS = { 'next-page': ['GET', 'HEAD'], dynamodb: ['POST'] };
